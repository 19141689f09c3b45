/* Driver.m: the driving thread and the watchdog (see Driver.h).
 *
 * Every wait is bounded except the API's own waits (waitUntilFinished and friends), which a
 * real implementation may never return from: the watchdog bounds those, and the harness's
 * deadline bounds the watchdog.
 */
#import "Driver.h"
#import "BlockObject.h"
#import "JSON.h"
#import "KVOObserver.h"
#import "Operations.h"
#import "Recorder.h"
#include <unistd.h>

/* The parent process when the driver started (RememberParent): the harness. Written once by
 * the main thread before any other thread exists, then only read. */
static pid_t parentAtStart;

void
RememberParent(void)
{
  parentAtStart = getppid();
}

/* How long a trigger may take at most before the step runs anyway (triggerMissed). */
static const double triggerTimeout = 1.0;

/* A call bracketed by `call` and `returned`, or `threw` with the closest MisuseKind when
 * GNUstep raised. A macro because gcc has no blocks to pass the statement in. */
#define LOGGED_CALL(callValue, ...) \
  do { \
    id call_ = (callValue); \
    Record(EvCall(call_)); \
    @try { __VA_ARGS__; Record(EvReturned(call_)); } \
    @catch (NSException *e_) { Record(EvThrew(call_, MisuseKindOf(e_), MessageOf(e_))); } \
  } while (0)

/* A driver action built for the setup, which runs as driver actions do. */
static DriverStep *
setupStep(ActionType action, NSInteger op, NSInteger queue, NSInteger number)
{
  DriverStep *d = [[DriverStep new] autorelease];

  d->trigger = TriggerNone;
  d->action = action;
  d->op = op;
  d->on = number;
  d->queue = queue;
  d->number = number;
  return d;
}

@implementation Interpreter (Driving)

- (double) triggerQuiet
{
  return MAX(0.25, 4 * [scenario longestSilentStep] * unit);
}

- (double) stallQuiet
{
  return MAX(0.5, 8 * [scenario longestSilentStep] * unit);
}

/* Operations the scenario's driver adds to queue q (for the reads after a wait). */
- (NSArray *) addedTo: (NSInteger)q
{
  NSMutableArray *out = [NSMutableArray array];

  for (DriverStep *d in scenario->driver)
    {
      if (d->action == ActAdd && d->queue == q)
        [out addObject: [NSNumber numberWithInteger: d->op]];
      else if (d->action == ActAddBatch && d->queue == q)
        [out addObjectsFromArray: d->ops];
    }
  return out;
}

- (void) perform: (DriverStep *)d
{
  NSOperation *op = (d->op >= 0 && d->op < (NSInteger)[ops count]) ? [ops objectAtIndex: d->op] : nil;
  NSOperationQueue *q = (d->queue >= 0 && d->queue < (NSInteger)[queues count]) ? [queues objectAtIndex: d->queue] : nil;

  /* A released queue is NSNull here; the scenario names it no more (Scenario.m checks). */
  if (![q isKindOfClass: [NSOperationQueue class]])
    q = nil;

  switch (d->action)
    {
      case ActAdd:
        LOGGED_CALL(CallAddOperation(d->op, d->queue), [q addOperation: op]);
        break;
      case ActAddBatch:
        {
          NSMutableArray *list = [NSMutableArray array];

          for (NSNumber *n in d->ops)
            [list addObject: [ops objectAtIndex: [n integerValue]]];
          LOGGED_CALL(CallAddOperations(d->ops, d->queue, d->wait),
            [q addOperations: list waitUntilFinished: d->wait]);
          if (d->wait)
            {
              for (NSOperation *o in list)
                (void)[o isFinished];
            }
        }
        break;
      case ActStart:
        [self start: d->op as: CallerDriver];
        break;
      case ActPerform:
        [self run: d->steps this: d->op];
        break;
      case ActCancel:
        @try { [op cancel]; }
        @catch (NSException *e) { }     /* logged by the cancel override */
        break;
      case ActCancelAll:
        LOGGED_CALL(CallCancelAll(d->queue), [q cancelAllOperations]);
        break;
      case ActSuspend:
        LOGGED_CALL(CallSetSuspended(d->queue, YES), [q setSuspended: YES]);
        break;
      case ActResume:
        LOGGED_CALL(CallSetSuspended(d->queue, NO), [q setSuspended: NO]);
        break;
      case ActSetMaxConcurrent:
        LOGGED_CALL(CallSetMaxConcurrent(d->queue, d->number), [q setMaxConcurrentOperationCount: d->number]);
        break;
      case ActAddDependency:
        LOGGED_CALL(CallAddDependency(d->op, d->on), [op addDependency: [ops objectAtIndex: d->on]]);
        break;
      case ActRemoveDependency:
        LOGGED_CALL(CallRemoveDependency(d->op, d->on), [op removeDependency: [ops objectAtIndex: d->on]]);
        break;
      case ActWaitUntilFinished:
        LOGGED_CALL(CallWaitUntilFinished(d->op), [op waitUntilFinished]);
        (void)[op isFinished];
        break;
      case ActWaitUntilAllFinished:
        LOGGED_CALL(CallWaitUntilAllFinished(d->queue), [q waitUntilAllOperationsAreFinished]);
        Record(EvOperationCount(d->queue, [q operationCount]));
        for (NSNumber *n in [self addedTo: d->queue])
          (void)[(NSOperation *)[ops objectAtIndex: [n integerValue]] isFinished];
        break;
      case ActSetCompletionBlock:
        LOGGED_CALL(CallSetCompletionBlock(d->op),
          [op setCompletionBlock: (GSOperationCompletionBlock)[CompletionBlock blockForOp: d->op body: d->steps]]);
        break;
      case ActAddExecutionBlock:
        if ([op isKindOfClass: [NSBlockOperation class]])
          {
            NSBlockOperation *b = (NSBlockOperation *)op;
            NSInteger number = [[b executionBlocks] count];

            LOGGED_CALL(CallAddExecutionBlock(d->op),
              [b addExecutionBlock: (GSBlockOperationBlock)[ExecutionBlock blockForOp: d->op number: number body: d->steps]]);
          }
        break;
      case ActSetQueuePriority:
        /* The raw value goes through: GNUstep's setter takes any integer and normalises it. */
        LOGGED_CALL(CallSetQueuePriority(d->op, d->number), [op setQueuePriority: d->number]);
        break;
      case ActSetThreadPriority:
        LOGGED_CALL(CallSetThreadPriority(d->op, d->priority), [op setThreadPriority: d->priority]);
        break;
      case ActRead:
        [self read: d->key of: d->op logging: YES];
        break;
      case ActReadOperationCount:
        Record(EvOperationCount(d->queue, [q operationCount]));
        break;
      case ActAddBlock:
        {
          /* The queue makes the operation (a plain NSBlockOperation); the block logs itself
           * as block 0 of d->op. Like the blocks of Interpreter.m's block operations, the
           * block object's one reference is handed to the operation's list of blocks. */
          OperationConfig *c = [scenario->operations objectAtIndex: d->op];
          id block = [ExecutionBlock blockForOp: d->op number: 0 body: [c->blocks objectAtIndex: 0]];

          LOGGED_CALL(CallAddBlock(d->op, d->queue), [q addOperationWithBlock: (GSBlockOperationBlock)block]);
        }
        break;
      case ActReadSuspended:
        Record(EvSuspended(d->queue, [q isSuspended]));
        break;
      case ActSleep:
        [TheRecorder() idleFor: d->number * unit];
        break;
      case ActReadOperations:
        {
          /* In the queue's order; an operation the driver does not hold (one the queue made for
           * an addBlock block) is -1. */
          NSMutableArray *list = [NSMutableArray array];

          for (NSOperation *o in [q operations])
            {
              NSUInteger i = [ops indexOfObjectIdenticalTo: o];

              [list addObject: JInt(i == NSNotFound ? -1 : (NSInteger)i)];
            }
          Record(EvOperations(d->queue, list));
        }
        break;
      case ActReleaseQueue:
        {
          /* The driver's reference goes (the list's retain is its only one: the queue was not
           * autoreleased): the queue lives on only if GNUstep keeps it. What it holds now is
           * remembered, since a queue the driver no longer holds cannot be asked at the end
           * (there are no zeroing weak references with this runtime): the drain waits for
           * those operations instead. Not those of a suspended queue or one of width 0, which
           * never runs them and is not waited for while held either (nothing can resume it
           * now). */
          id call = CallReleaseQueue(d->queue);

          Record(EvCall(call));
          if (q != nil)
            {
              if (![q isSuspended] && [q maxConcurrentOperationCount] != 0)
                [released addObjectsFromArray: [q operations]];
              [queues replaceObjectAtIndex: d->queue withObject: [NSNull null]];
            }
          Record(EvReturned(call));
        }
        break;
      case ActReadMainQueue:
        {
          /* On the driving thread, which is the process's main thread (main.m runs every case
           * there), so currentQueue answers for the main thread: GNUstep 1.28's +currentQueue
           * gives +mainQueue there whatever runs (NSOperation.m). The case's first answer is
           * kept, retained until the interpreter goes, for the identity of the later ones. */
          NSOperationQueue *m = [NSOperationQueue mainQueue];
          BOOL current = [NSOperationQueue currentQueue] == m;

          if (!mainQueueRead)
            {
              firstMainQueue = [m retain];
              mainQueueRead = YES;
            }
          Record(EvMainQueue(current, m == firstMainQueue, [m isSuspended]));
        }
        break;
      case ActReadQueueDeallocated:
        {
          /* The queue was released by an earlier step (Scenario.m checks), and its dealloc is
           * watched because this step asks about it (Interpreter.m, prepare). */
          id f = (d->queue >= 0 && d->queue < (NSInteger)[deallocFlags count])
            ? [deallocFlags objectAtIndex: d->queue] : nil;

          Record(EvQueueDeallocated(d->queue, [f isKindOfClass: [DeallocFlag class]] && [f isDeallocated]));
        }
        break;
      case ActResult:
        {
          id call = CallResult(d->op);

          Record(EvCall(call));
          @try
            {
              (void)[(NSInvocationOperation *)op result];
              Record(EvInvocationResult(d->op));
              Record(EvReturned(call));
            }
          @catch (NSException *e)
            {
              Record(EvThrew(call, MisuseKindOf(e), MessageOf(e)));
            }
        }
        break;
    }
}

/* Performs a driver action, marked as pending while it runs (what a stall is blamed on). */
- (void) perform: (DriverStep *)d as: (NSString *)description
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];

  [TheRecorder() setPending: description];
  [self perform: d];
  [TheRecorder() setPending: nil];
  [pool release];
}

- (BOOL) busy: (NSOperationQueue *)q
{
  if (![q isKindOfClass: [NSOperationQueue class]])
    return NO;                  /* released: its operations are in `released` */
  return [q operationCount] > 0 && ![q isSuspended] && [q maxConcurrentOperationCount] != 0;
}

/* How many operations released queues held that are not finished yet (read quietly: these
 * reads are the driver's, not the scenario's). */
- (NSUInteger) releasedPending
{
  NSUInteger n = 0;

  BeginQuiet();
  @try
    {
      for (NSOperation *op in released)
        if (![op isFinished])
          n++;
    }
  @finally
    {
      EndQuiet();
    }
  return n;
}

/* Lets everything started finish: every queue empties (at most 2 s, and only while something
 * still happens), then nothing happens for a little while. */
- (id) drain
{
  Recorder *r = TheRecorder();
  double deadline = Now() + 2, stall = [self stallQuiet];
  NSMutableArray *stuck = [NSMutableArray array];
  NSUInteger i;

  for (;;)
    {
      BOOL any = NO;

      for (NSOperationQueue *q in queues)
        any = any || [self busy: q];
      any = any || [self releasedPending] > 0;
      if (!any || Now() >= deadline || [r silence] >= stall)
        break;
      [r settleQuiet: 0.005 timeout: 0.05];
    }
  /* Code of the case can still be on a thread once the queues let go of its operations: a
   * subclass's finish between the queue's observer of isFinished and the driver's, which logs
   * the did-change. Its events belong to this trace (end drops what follows it), so the end
   * waits for that code while it makes progress. On a loaded machine such a thread was off the
   * processor for longer than the settle below, its did-change was dropped, and the case read as
   * KVO-BALANCED and KVO-FINISH-ALWAYS: false alarms. */
  deadline = Now() + 2;
  while (![r nothingRunning] && Now() < deadline && [r silence] < stall)
    [r settleQuiet: 0.005 timeout: 0.05];
  [r settleQuiet: 0.03 timeout: 1];
  for (i = 0; i < [queues count]; i++)
    {
      NSOperationQueue *q = [queues objectAtIndex: i];

      if ([self busy: q])
        [stuck addObject: [NSString stringWithFormat: @"queue %lu still holds %lu operations",
          (unsigned long)i, (unsigned long)[q operationCount]]];
    }
  if ([self releasedPending] > 0)
    [stuck addObject: [NSString stringWithFormat: @"%lu operations of released queues never finished",
      (unsigned long)[self releasedPending]]];
  if ([stuck count] == 0)
    return EvEnd();
  return EvHang([stuck componentsJoinedByString: @"; "]);
}

- (id) drive
{
  NSUInteger i;
  double quiet = [self triggerQuiet];

  [self prepare];
  for (i = 0; i < [scenario->queues count]; i++)
    {
      QueueConfig *c = [scenario->queues objectAtIndex: i];
      NSString *what = [NSString stringWithFormat: @"the setup of queue %lu", (unsigned long)i];

      /* First, and not a logged call: naming a queue cannot fail, and it must come before any
       * worker thread exists (003: the threads of a named queue are named <name>_<number>). */
      if (c->name != nil)
        [(NSOperationQueue *)[queues objectAtIndex: i] setName: c->name];
      if (c->maxConcurrent != -1)
        [self perform: setupStep(ActSetMaxConcurrent, 0, i, c->maxConcurrent) as: what];
      if (c->suspended)
        [self perform: setupStep(ActSuspend, 0, i, 0) as: what];
    }
  for (i = 0; i < [scenario->operations count]; i++)
    {
      OperationConfig *c = [scenario->operations objectAtIndex: i];
      NSString *what = [NSString stringWithFormat: @"the setup of operation %lu", (unsigned long)i];

      if (c->queuePriority != nil)
        [self perform: setupStep(ActSetQueuePriority, i, 0, [c->queuePriority integerValue]) as: what];
      if (c->threadPriority != nil)
        {
          DriverStep *d = setupStep(ActSetThreadPriority, i, 0, 0);

          d->priority = [c->threadPriority doubleValue];
          [self perform: d as: what];
        }
      if (c->completion != nil)
        {
          DriverStep *d = setupStep(ActSetCompletionBlock, i, 0, 0);

          d->steps = [c->completion retain];      /* a DriverStep owns its ivars (Scenario.m) */
          [self perform: d as: what];
        }
    }
  for (Edge *e in scenario->dependencies)
    {
      [self perform: setupStep(ActAddDependency, e->op, 0, e->on)
                 as: [NSString stringWithFormat: @"the setup of operation %ld's dependencies", (long)e->op]];
    }
  for (i = 0; i < [scenario->driver count]; i++)
    {
      DriverStep *d = [scenario->driver objectAtIndex: i];

      if (d->trigger != TriggerNone
        && ![TheRecorder() waitForTrigger: d timeout: triggerTimeout quiet: quiet])
        {
          Record(EvTriggerMissed(i));
        }
      Record(EvStepIssued(i));
      [self perform: d as: [NSString stringWithFormat: @"driver step %lu (%@)", (unsigned long)i, d->text]];
      Record(EvStepDone(i));
    }
  return [self drain];
}

/* How long, at most, leaveNothingBehind waits for each of its two conditions: a thread of the
 * case that is letting go of an operation (a queue's worker between an operation's start and
 * its release) takes microseconds; a case that waits longer is taken to have left something,
 * and costs only a fresh process for the next case. */
static const double letGoTimeout = 0.1;

/* Whether a queue holds operations it will never run by itself (suspended, or width 0). */
static BOOL
heldForEver(NSOperationQueue *q)
{
  if (![q isKindOfClass: [NSOperationQueue class]])
    return NO;                  /* released */
  return [q operationCount] > 0 && ([q isSuspended] || [q maxConcurrentOperationCount] == 0);
}

/* Whether code of the case may still run. The recorder's counts first: an open frame or a live
 * spawned thread means code of the case is on some thread's stack (and may hold a lock GNUstep
 * also takes: the queues are asked only once nothing of the case runs). Then every queue is
 * empty, and no operation says it is executing (read quietly: the trace is closed, and these
 * reads are the driver's, not the scenario's). */
- (BOOL) atRest
{
  BOOL executing = NO;

  if (![TheRecorder() nothingRunning])
    return NO;
  for (NSOperationQueue *q in queues)
    {
      if ([q isKindOfClass: [NSOperationQueue class]] && [q operationCount] > 0)
        return NO;
    }
  if ([self releasedPending] > 0)
    return NO;
  BeginQuiet();
  @try
    {
      for (NSOperation *op in ops)
        executing = executing || [op isExecuting];
    }
  @finally
    {
      EndQuiet();
    }
  return !executing;
}

/* Whether some thread besides this one holds an operation of the case. Once the KVO
 * registrations and dependencies are gone, the interpreter's list is the only owner an
 * operation of a case at rest has, so its retain count is 1. A queue's worker retains the
 * operation it took from the queue from before it calls start until after its own call of
 * the private _finish (GNUstep 1.28 NSOperation.m, -[NSOperationQueue _thread]); that tail
 * runs no frame of ours and happens after the queue forgot the operation, but _finish can
 * still send KVO and run the completion block. A count above 1 is that, or a holder this
 * driver does not know: either way the case is not over. */
- (BOOL) operationsReleased
{
  for (NSOperation *op in ops)
    {
      if ([op retainCount] != 1)
        return NO;
    }
  return [TheRecorder() nothingRunning];
}

- (BOOL) leaveNothingBehind
{
  double deadline = Now() + letGoTimeout;
  NSAutoreleasePool *pool;
  BOOL ok = YES;

  for (;;)
    {
      /* A queue that cannot run holds its operations for ever: no use waiting. Asked only
       * while nothing of the case runs, as atRest asks. */
      if ([TheRecorder() nothingRunning])
        {
          for (NSOperationQueue *q in queues)
            {
              if (heldForEver(q))
                return NO;
            }
          if ([self atRest])
            break;
        }
      if (Now() >= deadline)
        return NO;
      usleep(1000);
    }
  /* What released queues held was kept only to wait for it: let it go, so that the retain
   * counts below see the operations' own owners. */
  [released removeAllObjects];

  /* Tear down what ties the operations to each other and to the observer, so that releasing
   * them frees them here, on this thread, while the trace is closed. Our KVO registrations
   * first: GNUstep's KVO keeps the observer as a plain pointer and the last `dependencies`
   * value it notified (an array of operations). Then every dependency, while this list still
   * holds every operation: GNUstep 1.28's -[NSOperation dealloc] removes an operation's
   * dependencies itself, and when the operation is not ready it looks at the removed
   * dependency again after -removeObject: may have freed it (NSOperation.m, -removeDependency:
   * then -observeValueForKeyPath:...). Removing a dependency sends KVO (to no one of ours now)
   * and may read isFinished of the others (logged into the closed trace: dropped). The pool
   * drops the autoreleased copies of dependency lists, which hold operations too. */
  pool = [NSAutoreleasePool new];
  @try
    {
      for (NSOperation *op in ops)
        {
          /* The slots of addBlock operations were never observed (Interpreter.m). */
          if ([op conformsToProtocol: @protocol(LoggedOperation)])
            [observer forget: op];
        }
      for (NSOperation *op in ops)
        {
          for (NSOperation *dependency in [op dependencies])
            [op removeDependency: dependency];
        }
    }
  @catch (NSException *e)
    {
      ok = NO;
    }
  [pool release];
  if (!ok)
    return NO;

  deadline = Now() + letGoTimeout;
  while (![self operationsReleased])
    {
      if (Now() >= deadline)
        return NO;
      usleep(1000);
    }
  return YES;
}
@end

/* The watchdog thread, one for the process. The driving thread is stuck and cannot end the
 * process itself; _exit skips exit handlers that could wait for it. It watches the current
 * case through the recorder, which closes a stalled case in one step under its lock
 * (closeIfStalled): a case already over is never closed again, and a case begun since is not
 * blamed for the stall of the one before.
 *
 * It also watches the harness. When getppid() is no longer the parent RememberParent saw, the
 * harness died (kill -9, a crash) and this process was re-parented to init or a subreaper: no
 * one is left to read the trace, so the driver leaves at once, without a word (status 3; no one
 * reads that either). The end of standard input cannot tell while a case runs: a harness of
 * protocol 2 closes it as soon as the request is written. Nor can Linux's PR_SET_PDEATHSIG: it
 * fires when the parent *thread* that spawned the driver ends, and the harness spawns each case
 * from a worker thread that may end before the case does. Checked on every tick (20 ms; a cheap
 * system call), between cases as well. */
@interface Watchdog : NSObject
+ (void) watch: (id)unused;
@end

@implementation Watchdog
+ (void) watch: (id)unused
{
  for (;;)
    {
      NSAutoreleasePool *pool = [NSAutoreleasePool new];

      usleep(20000);
      if (getppid() != parentAtStart)
        {
          _exit(3);
        }
      if ([TheRecorder() closeIfStalled])
        {
          /* The driving thread is stuck in the call: it never writes done (its closeWith:
           * answers NO), so this line is the case's last. */
          WriteMessage(JCase(@"done", nil));
          _exit(0);
        }
      [pool release];
    }
}
@end

void
StartWatchdog(void)
{
  [NSThread detachNewThreadSelector: @selector(watch:) toTarget: [Watchdog class] withObject: nil];
}
