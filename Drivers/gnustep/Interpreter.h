/* Interpreter.h: one run of a scenario on GNUstep's NSOperation and NSOperationQueue, with
 * real threads: the operations, the queues, and the interpreter of step programs
 * (after FoundationContext.swift). The driving thread's part is in Driver.m.
 */
#import <Foundation/Foundation.h>
#import "Scenario.h"
#import "Events.h"

/* Whether a queue has been deallocated, for readQueueDeallocated (API surface 4): this runtime
 * has no zeroing weak references, so the queue itself says so as it goes (Interpreter.m,
 * DeallocWatchedQueue). Set once, by whichever thread runs the queue's dealloc; read by the
 * driving thread. It belongs to one case: the interpreter and the queue each retain it, so a
 * queue that outlives its case marks its own case's flag, never the next case's. */
@interface DeallocFlag : NSObject
{
  int deallocated;              /* 0 or 1; only through the atomic builtins (Interpreter.m) */
}
- (void) noteDeallocated;
- (BOOL) isDeallocated;
@end

@interface Interpreter : NSObject
{
@public
  Scenario *scenario;
  double unit;                  /* seconds per unit of work */
  NSMutableArray *ops;          /* operation i is ops[i] */
  NSMutableArray *queues;       /* queue i is queues[i]; NSNull once a releaseQueue step let it
                                 * go. The driving thread's only: code of operations finds a queue
                                 * through the recorder's fixed list (queueNumbered:). */
  NSMutableArray *released;     /* what released queues held when let go: the drain waits for them */
  NSMutableArray *deallocFlags; /* queue i's DeallocFlag, or NSNull when no readQueueDeallocated
                                 * asks about it (its dealloc is not watched) */
  NSOperationQueue *firstMainQueue;     /* what the case's first readMainQueue read, retained */
  BOOL mainQueueRead;           /* a readMainQueue ran: firstMainQueue is set */
  id observer;                  /* the KVO observer of every operation */
}
- (id) initWithScenario: (Scenario *)s unit: (double)seconds;
/* Creates the queues and the operations, and observes every operation's KVO keys. */
- (void) prepare;
/* Runs steps with self = operation `this`; YES when a `return` ended the routine. */
- (BOOL) run: (NSArray *)steps this: (NSInteger)this;
/* Reads a property (a Value). The four state getters log themselves; the others are logged
 * here when `logging`. */
- (id) read: (NSString *)key of: (NSInteger)op logging: (BOOL)logging;
/* The value a KVO notification carries: read now, without logging a read. */
- (id) quietValue: (NSString *)key of: (NSInteger)op;
/* Calls start on an operation as `role` (driver or program). An exception it raised is
 * already in the trace (the start override logs threw) and stops here. */
- (void) start: (NSInteger)op as: (Caller)role;
@end

/* The run of the current case (one at a time; nil between cases of a session). */
Interpreter *TheInterpreter(void);
