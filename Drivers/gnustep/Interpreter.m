/* Interpreter.m: the operations and queues of a run, and the step interpreter
 * (see Interpreter.h).
 */
#import "Interpreter.h"
#import "BlockObject.h"
#import "KVOObserver.h"
#import "Operations.h"
#import "Recorder.h"

static Interpreter *current = nil;

Interpreter *
TheInterpreter(void)
{
  return current;
}

/* The body of a thread made by a spawn step: NSThread needs an object and a selector. The
 * recorder counts it as live from before it is started (spawnBegan, in the spawn step) to its
 * body's last act (spawnEnded), so a case whose spawned thread still runs is never followed by
 * another case in the same process. */
@interface Spawner : NSObject
{
@public
  NSInteger op;
  BOOL start;                   /* YES: start, NO: main */
}
- (void) run: (id)unused;
@end

@implementation Spawner
- (void) run: (id)unused
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];

  if (start)
    {
      [current start: op as: CallerProgram];
    }
  else
    {
      /* An exception escaping a detached thread would end the process; main is the
       * program's own code and reports what it calls, so nothing is lost here. */
      @try { [(NSOperation *)[current->ops objectAtIndex: op] main]; }
      @catch (NSException *e) { }
    }
  [pool release];
  [TheRecorder() spawnEnded];
}
@end

@implementation DeallocFlag
/* Sound without a lock: the flag is one int that goes from 0 to 1 once, stored by the thread
 * that runs the queue's dealloc and loaded by the driving thread. The atomic store and load
 * never tear, and the release/acquire pair makes a load that sees 1 see everything the
 * dealloc did before the store. The object itself lives while either owner holds it (GNUstep's
 * retain counts are atomic), so neither thread can find it freed. */
- (void) noteDeallocated
{
  __atomic_store_n(&deallocated, 1, __ATOMIC_RELEASE);
}

- (BOOL) isDeallocated
{
  return __atomic_load_n(&deallocated, __ATOMIC_ACQUIRE) != 0;
}
@end

/* A queue a readQueueDeallocated action asks about (API surface 4), and only such a queue:
 * every other queue stays a plain NSOperationQueue, so no other scenario runs differently. Its
 * one addition is a dealloc that marks its case's flag. */
@interface DeallocWatchedQueue : NSOperationQueue
{
  DeallocFlag *flag;
}
- (id) initWithFlag: (DeallocFlag *)f;
@end

@implementation DeallocWatchedQueue
- (id) initWithFlag: (DeallocFlag *)f
{
  if ((self = [super init]) != nil)
    {
      flag = [f retain];
    }
  return self;
}

/* Runs on whichever thread lets go of the queue last: with GNUstep 1.28 often a worker thread of
 * the queue as it exits (NSThread holds its target, and the thread's dictionary holds the queue),
 * possibly while a later case of the session runs; the flag is this queue's case's, so that does
 * no harm. The flag is set once NSOperationQueue's dealloc is over (it cancels what the queue
 * still holds and frees its state): a read that sees it set sees a queue that is gone. The
 * local keeps the flag, as self is freed by then. */
- (void) dealloc
{
  DeallocFlag *f = flag;

  [super dealloc];
  [f noteDeallocated];
  [f release];
}
@end

@implementation Interpreter

- (id) initWithScenario: (Scenario *)s unit: (double)seconds
{
  if ((self = [super init]) != nil)
    {
      scenario = [s retain];
      unit = seconds;
      ops = [NSMutableArray new];
      queues = [NSMutableArray new];
      released = [NSMutableArray new];
      deallocFlags = [NSMutableArray new];
      observer = [KVOObserver new];
      current = self;
    }
  return self;
}

/* Only once its case left nothing behind (Driver.m, leaveNothingBehind): the KVO registrations
 * and dependencies are gone by then, and no thread holds an operation. */
- (void) dealloc
{
  if (current == self)
    {
      current = nil;
    }
  DESTROY(ops);
  DESTROY(queues);
  DESTROY(released);
  DESTROY(deallocFlags);
  DESTROY(firstMainQueue);
  DESTROY(observer);
  DESTROY(scenario);
  [super dealloc];
}

- (void) prepare
{
  NSUInteger i;

  /* Queues keep GNUstep's default name unless the scenario names them (Driver.m, first in
   * configuration): QUEUE-THREAD-NAME judges the names of the worker threads of unnamed
   * queues. */
  for (i = 0; i < [scenario->queues count]; i++)
    {
      /* Not autoreleased: the case's pool would hold every queue until the case is over, and
       * a releaseQueue step must drop the last reference the driver has. A queue that a
       * readQueueDeallocated step asks about tells when it goes; the others are plain. */
      NSOperationQueue *q;

      if ([scenario readsDeallocationOf: i])
        {
          DeallocFlag *f = [DeallocFlag new];

          q = [[DeallocWatchedQueue alloc] initWithFlag: f];
          [deallocFlags addObject: f];
          [f release];
        }
      else
        {
          q = [NSOperationQueue new];
          [deallocFlags addObject: [NSNull null]];
        }
      [queues addObject: q];
      [q release];
    }
  /* The recorder and the currentQueue lookups compare against this fixed list of identities,
   * never retained and never changed, so a release (which changes `queues` on the driving
   * thread) races with nothing they read. */
  {
    NSMutableArray *identities = [NSMutableArray array];

    for (NSOperationQueue *q in queues)
      [identities addObject: [NSValue valueWithNonretainedObject: q]];
    [TheRecorder() setQueues: identities];
  }
  for (i = 0; i < [scenario->operations count]; i++)
    {
      OperationConfig *c = [scenario->operations objectAtIndex: i];
      NSOperation *op = nil;
      NSUInteger b;

      if ([scenario isBlockAdded: i])
        {
          /* Its block goes to -addOperationWithBlock: (Driver.m): the queue makes the
           * operation. This slot keeps operation numbers in place; nothing reaches it (the
           * harness refuses every other reference) and it is not observed. */
          op = [NSOperation new];
          [ops addObject: op];
          [op release];
          continue;
        }
      switch (c->kind)
        {
          case KindMain:
            op = [[MainOperation alloc] initWithIndex: i body: c->body];
            break;
          case KindInvocation:
            op = [[LoggedInvocationOperation alloc] initWithIndex: i body: c->body];
            break;
          case KindBlock:
            op = [[LoggedBlockOperation alloc] initWithIndex: i];
            for (b = 0; b < [c->blocks count]; b++)
              {
                [(NSBlockOperation *)op addExecutionBlock: (GSBlockOperationBlock)
                  [ExecutionBlock blockForOp: i number: b body: [c->blocks objectAtIndex: b]]];
              }
            break;
          case KindConcurrent:
            op = [[ProgramOperation alloc] initWithIndex: i program: c];
            break;
        }
      if (c->readyAfterSignal != nil)
        {
          [(id<LoggedOperation>)op setReadyAfterSignal: [c->readyAfterSignal integerValue]];
        }
      [ops addObject: op];
      [op release];
      [observer observe: op];
    }
}

- (void) start: (NSInteger)op as: (Caller)role
{
  AnnounceStart(op, role);
  @try
    {
      [(NSOperation *)[ops objectAtIndex: op] start];
    }
  @catch (NSException *e)
    {
      /* Already logged as threw by the start override. */
    }
  @finally
    {
      AnnounceStart(-1, CallerQueue);
    }
}

- (id) read: (NSString *)key of: (NSInteger)index logging: (BOOL)logging
{
  NSOperation *op = [ops objectAtIndex: index];
  BOOL selfLogging = NO;
  id value;

  if ([key isEqual: @"isCancelled"])
    value = ValBool([op isCancelled]), selfLogging = YES;
  else if ([key isEqual: @"isExecuting"])
    value = ValBool([op isExecuting]), selfLogging = YES;
  else if ([key isEqual: @"isFinished"])
    value = ValBool([op isFinished]), selfLogging = YES;
  else if ([key isEqual: @"isReady"])
    value = ValBool([op isReady]), selfLogging = YES;
  else if ([key isEqual: @"isConcurrent"])
    value = ValBool([op isConcurrent]);   /* GNUstep 1.28 has no isAsynchronous */
  else if ([key isEqual: @"dependencies"])
    {
      NSMutableArray *list = [NSMutableArray array];

      for (NSOperation *d in [op dependencies])
        {
          NSUInteger i = [ops indexOfObjectIdenticalTo: d];

          if (i != NSNotFound)
            [list addObject: [NSNumber numberWithInteger: i]];
        }
      value = ValOps(list);
    }
  else if ([key isEqual: @"queuePriority"])
    value = ValInt([op queuePriority]);
  else if ([key isEqual: @"completionBlock"])
    value = ValBool([op completionBlock] != NULL);
  else if ([key isEqual: @"executionBlocks"])
    {
      /* Only block operations are asked (Scenario.m refuses the rest). */
      value = ValInt([op isKindOfClass: [NSBlockOperation class]] ? (NSInteger)[[(NSBlockOperation *)op executionBlocks] count] : 0);
    }
  else
    value = ValDouble([op threadPriority]);
  if (logging && !selfLogging)
    {
      Record(EvRead(index, key, value));
    }
  return value;
}

- (id) quietValue: (NSString *)key of: (NSInteger)op
{
  id v = nil;

  BeginQuiet();
  @try { v = [self read: key of: op logging: NO]; }
  @finally { EndQuiet(); }
  return v;
}

- (BOOL) evaluate: (Condition *)c this: (NSInteger)this
{
  NSInteger index = c->ref == REF_THIS ? this : c->ref;
  NSOperation *op = c->type <= CondIsFinished ? [ops objectAtIndex: index] : nil;

  switch (c->type)
    {
      case CondIsCancelled: return [op isCancelled];
      case CondIsReady: return [op isReady];
      case CondIsConcurrent:
        return [[self read: @"isConcurrent" of: index logging: YES] isEqual: ValBool(YES)];
      case CondIsExecuting: return [op isExecuting];
      case CondIsFinished: return [op isFinished];
      case CondNot: return ![self evaluate: c->a this: this];
      case CondAnd: return [self evaluate: c->a this: this] && [self evaluate: c->b this: this];
    }
  return NO;
}

/* One step; YES when it returns from the routine. */
- (BOOL) perform: (Step *)s this: (NSInteger)this
{
  NSOperation *op = [ops objectAtIndex: this];
  NSInteger target = s->ref == REF_THIS ? this : s->ref;
  NSInteger i;

  switch (s->type)
    {
      case StepWork:
        if (s->n > 0)
          {
            Record(EvWork(this, s->n));
            [NSThread sleepForTimeInterval: s->n * unit];
          }
        break;
      case StepReturnIfCancelled:
        return [op isCancelled];
      case StepIf:
        return [self run: ([self evaluate: s->cond this: this] ? s->then : s->otherwise) this: this];
      case StepRepeat:
        for (i = 0; i < s->n; i++)
          {
            if ([self run: s->body this: this])
              return YES;
          }
        break;
      case StepReturn:
        return YES;
      case StepWillChange:
        /* The KVO observer logs the notification (KVOObserver.h). */
        [op willChangeValueForKey: s->key];
        break;
      case StepDidChange:
        [op didChangeValueForKey: s->key];
        break;
      case StepSet:
        if ([op isKindOfClass: [ProgramOperation class]])
          [(ProgramOperation *)op setState: s->key to: s->flag];
        else
          Record(EvSet(this, s->key, s->flag));
        break;
      case StepCall:
        if ([op isKindOfClass: [ProgramOperation class]])
          {
            NSArray *body = [[(ProgramOperation *)op program] routineNamed: s->name];

            if (body != nil)
              [self run: body this: this];
          }
        break;
      case StepCallMain:
        @try { [op main]; }
        @catch (NSException *e) { }
        break;
      case StepCallSuperStart:
        {
          id call = CallSuperStart(this);

          Record(EvCall(call));
          @try
            {
              if ([op isKindOfClass: [ProgramOperation class]])
                [(ProgramOperation *)op superStart];
              Record(EvReturned(call));
            }
          @catch (NSException *e)
            {
              Record(EvThrew(call, MisuseKindOf(e), MessageOf(e)));
            }
        }
        break;
      case StepSpawn:
        {
          Spawner *sp = [[Spawner new] autorelease];

          sp->op = target;
          sp->start = s->flag;
          [TheRecorder() spawnBegan];
          @try
            {
              [NSThread detachNewThreadSelector: @selector(run:) toTarget: sp withObject: nil];
            }
          @catch (NSException *e)
            {
              /* No thread was made: nothing will end it. */
              [TheRecorder() spawnEnded];
              @throw;
            }
        }
        break;
      case StepStart:
        [self start: target as: CallerProgram];
        break;
      case StepCancel:
        @try { [(NSOperation *)[ops objectAtIndex: target] cancel]; }
        @catch (NSException *e) { }     /* logged by the cancel override */
        break;
      case StepCancelAll:
        {
          /* From the operation's own code (API surface 3), logged as the driver's call is. The
           * queue comes from the recorder's fixed list, not from `queues`, which the driving
           * thread changes when it releases a queue; a scenario that cancels a released
           * queue's operations from code is refused (Scenario.m, as the harness refuses it). */
          id call = CallCancelAll(s->n);
          NSOperationQueue *target = [TheRecorder() queueNumbered: s->n];

          Record(EvCall(call));
          @try
            {
              [(NSOperationQueue *)target cancelAllOperations];
              Record(EvReturned(call));
            }
          @catch (NSException *e)
            {
              Record(EvThrew(call, MisuseKindOf(e), MessageOf(e)));
            }
        }
        break;
      case StepRead:
        [self read: s->key of: target logging: YES];
        break;
      case StepSignal:
        Record(EvSignal(s->n));
        /* The operations whose isReady override waits for this token became ready: the
         * signalling code says so, as 004 asks of such a subclass ("generate KVO
         * notifications for the isReady key path"), in operation-number order. The KVO
         * observer logs both notifications; GNUstep's queue, observing isReady of an
         * operation it holds that was not ready, learns it may start it. */
        for (i = 0; i < (NSInteger)[scenario->operations count]; i++)
          {
            OperationConfig *c = [scenario->operations objectAtIndex: i];

            if (c->readyAfterSignal != nil && [c->readyAfterSignal integerValue] == s->n)
              {
                NSOperation *ready = [ops objectAtIndex: i];

                [ready willChangeValueForKey: @"isReady"];
                [ready didChangeValueForKey: @"isReady"];
              }
          }
        break;
      case StepReadCurrentQueue:
        {
          /* The main thread answers the main queue, none of the scenario's. By identity, so a
           * queue the driver released is still named. */
          Record(EvCurrentQueue(this, [TheRecorder() indexOfQueue: [NSOperationQueue currentQueue]]));
        }
        break;
      case StepAwait:
        Record(EvAwaited(s->n, [TheRecorder() awaitToken: s->n timeout: s->timeout * unit]));
        break;
    }
  return NO;
}

- (BOOL) run: (NSArray *)steps this: (NSInteger)this
{
  for (Step *s in steps)
    {
      if ([self perform: s this: this])
        return YES;
    }
  return NO;
}
@end
