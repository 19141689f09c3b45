/* Events.h: how each trace event, call and value is spelled in JSON.
 *
 * One function per case of EventKind, Call and Value (Sources/OperationSpec/Trace/), each
 * building Swift Codable's synthesized encoding: unlabelled fields are _0, _1, ... by position,
 * labelled ones by label, a case without fields is {}. Keeping every spelling here means a
 * change in the Swift types is mirrored in one file.
 */
#import <Foundation/Foundation.h>

/* Callers of start (Caller in Call.swift). */
typedef enum { CallerDriver, CallerProgram, CallerQueue } Caller;

/* Values (Value in StateKey.swift). */
id ValBool(BOOL b);
id ValInt(NSInteger n);
id ValDouble(double d);
id ValOps(NSArray *indices);    /* NSNumbers */

/* Calls (Call in Call.swift). */
id CallStart(NSInteger op, Caller by);
id CallSuperStart(NSInteger op);
id CallCancel(NSInteger op);
id CallAddOperation(NSInteger op, NSInteger queue);
id CallAddOperations(NSArray *ops, NSInteger queue, BOOL wait);
id CallAddDependency(NSInteger op, NSInteger on);
id CallRemoveDependency(NSInteger op, NSInteger on);
id CallSetCompletionBlock(NSInteger op);
id CallAddExecutionBlock(NSInteger op);
id CallSetQueuePriority(NSInteger op, NSInteger raw);
id CallSetThreadPriority(NSInteger op, double p);
id CallCancelAll(NSInteger queue);
id CallReleaseQueue(NSInteger queue);
id CallSetSuspended(NSInteger queue, BOOL suspended);
id CallSetMaxConcurrent(NSInteger queue, NSInteger n);
id CallWaitUntilFinished(NSInteger op);
id CallWaitUntilAllFinished(NSInteger queue);
id CallResult(NSInteger op);
id CallAddBlock(NSInteger op, NSInteger queue);

/* Events (EventKind in TraceEvent.swift). */
id EvThreadStarted(NSString *name, NSInteger queue);    /* queue < 0: none */
id EvStepIssued(NSInteger i);
id EvStepDone(NSInteger i);
id EvTriggerMissed(NSInteger i);
id EvCall(id call);
id EvReturned(id call);
id EvThrew(id call, NSString *misuseKind, NSString *message);
id EvMainBegan(NSInteger op, double threadPriority);
id EvMainEnded(NSInteger op);
id EvBlockBegan(NSInteger op, NSInteger block);
id EvBlockEnded(NSInteger op, NSInteger block);
id EvCompletionBegan(NSInteger op, double threadPriority);
id EvCompletionEnded(NSInteger op);
id EvWillChange(NSInteger op, NSString *key, id value);
id EvDidChange(NSInteger op, NSString *key, id value);
id EvRead(NSInteger op, NSString *key, id value);
id EvSet(NSInteger op, NSString *key, BOOL value);
id EvOperationCount(NSInteger queue, NSInteger n);
id EvOperations(NSInteger queue, NSArray *ops);      /* ops: NSNumbers, -1 for one the driver does not know */
id EvSuspended(NSInteger queue, BOOL suspended);
id EvCurrentQueue(NSInteger op, NSInteger queue);       /* queue < 0: none of the scenario's */
id EvMainQueue(BOOL current, BOOL same, BOOL suspended);
id EvQueueDeallocated(NSInteger queue, BOOL deallocated);
id EvWork(NSInteger op, NSInteger units);
id EvSignal(NSInteger token);
id EvAwaited(NSInteger token, BOOL satisfied);
id EvInvocationResult(NSInteger op);
id EvHang(NSString *what);
id EvUnsupported(NSString *why);
id EvEnd(void);

/* The closest MisuseKind for an exception GNUstep raised, from its name and reason
 * (the reasons are those of NSOperation.m and NSInvocationOperation.m in 1.28). */
NSString *MisuseKindOf(NSException *e);
/* "name: reason", the message a threw event carries. */
NSString *MessageOf(NSException *e);
