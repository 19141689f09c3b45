/* Scenario.h: the scenario of one case (Specs/scenario-format.md) as Objective-C objects.
 *
 * The request's JSON is read once into these classes (Scenario.m), checked the way
 * Scenario.problems() in Sources/OperationSpec/Scenario/Scenario+Validation.swift checks it,
 * and only then run. The interpreter never looks at JSON, so a malformed request is answered
 * with one sentence instead of failing half way through a run.
 *
 * Fields are public ivars (GCC's Objective-C has no literals and patchy property support);
 * the objects are built once and never change.
 */
#import <Foundation/Foundation.h>

/* An operation reference: `this` or an operation index. */
#define REF_THIS (-1)

typedef enum
{
  CondIsCancelled, CondIsReady, CondIsConcurrent, CondIsExecuting, CondIsFinished,
  CondNot, CondAnd
} ConditionType;

@interface Condition : NSObject
{
@public
  ConditionType type;
  NSInteger ref;                /* the OpRef of the five getters */
  Condition *a, *b;             /* not: a; and: a, b */
}
@end

typedef enum
{
  StepWork, StepReturnIfCancelled, StepIf, StepRepeat, StepReturn, StepWillChange,
  StepDidChange, StepSet, StepCall, StepCallMain, StepCallSuperStart, StepSpawn, StepStart,
  StepCancel, StepRead, StepSignal, StepAwait, StepReadCurrentQueue, StepCancelAll
} StepType;

@interface Step : NSObject
{
@public
  StepType type;
  NSInteger n;                  /* work units, repeat count, token, cancelAll's queue */
  NSInteger timeout;            /* await */
  NSString *key;                /* a StateKey raw value */
  BOOL flag;                    /* set: the stored value; spawn: YES for start, NO for main */
  NSString *name;               /* call: the routine */
  NSInteger ref;                /* spawn, start, cancel, read */
  Condition *cond;
  NSArray *then, *otherwise, *body;     /* arrays of Step */
}
@end

typedef enum { KindMain, KindBlock, KindConcurrent, KindInvocation } OperationKindType;

@interface OperationConfig : NSObject
{
@public
  OperationKindType kind;
  NSArray *body;                /* main, invocation */
  NSArray *blocks;              /* block: arrays of Step */
  BOOL overridesIsConcurrent;   /* concurrent */
  NSArray *start, *main;        /* concurrent */
  NSArray *routineNames, *routineBodies;        /* concurrent, in order */
  NSNumber *queuePriority;      /* nil: never set */
  NSNumber *threadPriority;     /* nil: never set */
  NSArray *completion;          /* nil: no completion block */
  NSNumber *readyAfterSignal;   /* nil: isReady as inherited; else the token its override waits for */
}
- (NSArray *) routineNamed: (NSString *)aName;  /* the first routine of that name, or nil */
- (BOOL) overridesStart;
- (NSUInteger) blockCount;
@end

@interface QueueConfig : NSObject
{
@public
  NSInteger maxConcurrent;
  BOOL suspended;
  NSString *name;               /* nil: GNUstep's default name */
}
@end

typedef enum
{
  TriggerNone, TriggerStarted, TriggerMainBegan, TriggerBlockBegan, TriggerFinished,
  TriggerSignaled               /* triggerOp holds the token */
} TriggerType;

typedef enum
{
  ActAdd, ActAddBatch, ActStart, ActPerform, ActCancel, ActCancelAll, ActSuspend, ActResume,
  ActSetMaxConcurrent, ActAddDependency, ActRemoveDependency, ActWaitUntilFinished,
  ActWaitUntilAllFinished, ActSetCompletionBlock, ActAddExecutionBlock, ActSetQueuePriority,
  ActSetThreadPriority, ActRead, ActReadOperationCount, ActResult, ActAddBlock,
  ActReadSuspended, ActSleep, ActReleaseQueue, ActReadOperations, ActReadMainQueue,
  ActReadQueueDeallocated
} ActionType;

@interface DriverStep : NSObject
{
@public
  TriggerType trigger;
  NSInteger triggerOp, triggerBlock;
  ActionType action;
  NSInteger op, on, queue, number;      /* number: max concurrent, raw priority, sleep units */
  NSArray *ops;                 /* addBatch */
  BOOL wait;                    /* addBatch */
  double priority;              /* setThreadPriority */
  NSString *key;                /* read */
  NSArray *steps;               /* perform, setCompletionBlock, addExecutionBlock */
  NSString *text;               /* the action as Swift prints it, for hang messages */
}
@end

@interface Edge : NSObject
{
@public
  NSInteger op, on;
}
@end

@interface Scenario : NSObject
{
@public
  NSInteger format;
  NSString *name;
  NSArray *queues;              /* QueueConfig */
  NSArray *operations;          /* OperationConfig */
  NSArray *dependencies;        /* Edge */
  NSArray *driver;              /* DriverStep */
}
/* The scenario read from its JSON object, or nil with *error set to one sentence. */
+ (Scenario *) scenarioFromJSON: (id)json error: (NSString **)error;
/* Every reason the scenario cannot run, one sentence each (Scenario+Validation.swift). */
- (NSArray *) problems;
/* The problems of released queues (part of problems). */
- (void) releaseProblemsInto: (NSMutableArray *)sink;
/* The largest `work` or await timeout anywhere, or driver `sleep`, in units
 * (Scenario+Steps.swift; a sleep is as silent as a work step). */
- (NSInteger) longestSilentStep;
/* Whether operation `op` is added by an addBlock action: the queue makes its operation. */
- (BOOL) isBlockAdded: (NSInteger)op;
/* Whether a readQueueDeallocated action asks about queue `q`: only then is its dealloc watched. */
- (BOOL) readsDeallocationOf: (NSInteger)q;
@end

/* The StateKey raw values, in the order of StateKey.swift. */
BOOL IsStateKey(NSString *key);
