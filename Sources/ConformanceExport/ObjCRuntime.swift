import Conformance

/// The part of every Objective-C reproducer that does not depend on its scenario: the event
/// log, the key-value observer, the block shim gcc needs, tokens, bounded waits and the
/// checks. Written out in full in each reproducer, so it needs nothing but GNUstep Base.
enum ObjCRuntime {
    static let text = #"""
/* ---- What every reproducer of this kind shares (scenario-independent) ---- */

/* Not every reproducer uses every check or helper below. */
#pragma GCC diagnostic ignored "-Wunused-function"

/* Debian's GNUstep uses the GCC Objective-C runtime, and gcc has no blocks. GNUstep calls a
 * block as block->invoke(block) on a struct { isa; int flags; int reserved; void (*invoke)(void *); }
 * (GSBlocks.h), so an object whose first ivars are those fields is a block to it. */
@interface StepsBlock : NSObject
{
@public
  int flags;
  int reserved;
  void (*invoke)(void *);
  void (*body)(void);
  int op, number, role;         /* role 0: an execution block, 1: a completion block */
}
+ (id) block: (void (*)(void))body op: (int)op number: (int)number role: (int)role;
@end

enum { EV_START, EV_MAIN_BEGAN, EV_MAIN_ENDED, EV_BLOCK_BEGAN, EV_BLOCK_ENDED, EV_COMPLETION_BEGAN,
       EV_COMPLETION_ENDED, EV_WILL, EV_DID, EV_SET, EV_READ, EV_SIGNAL, EV_AWAITED, EV_CALL, EV_RETURNED,
       EV_THREW, EV_STUCK, EV_THREAD, EV_FINISHED, EV_FINISHING, EV_ACTIVE, EV_TASK_BEGAN, EV_TASK_ENDED };
static const char *eventNames[] = { "start", "main began", "main ended", "block began", "block ended",
  "completion began", "completion ended", "will-change", "did-change", "ivar set", "read", "signal", "awaited",
  "call", "returned", "threw", "did not return", "thread" };
enum { K_IS_CANCELLED, K_IS_CONCURRENT, K_IS_EXECUTING, K_IS_FINISHED, K_IS_READY, K_DEPENDENCIES,
       K_QUEUE_PRIORITY, K_COMPLETION_BLOCK, K_THREAD_PRIORITY, K_EXECUTION_BLOCKS };
static NSString *keyNames[] = { @"isCancelled", @"isConcurrent", @"isExecuting", @"isFinished", @"isReady",
  @"dependencies", @"queuePriority", @"completionBlock", @"threadPriority", @"executionBlocks" };
enum { CALL_CANCEL, CALL_ADD, CALL_ADD_BATCH, CALL_SET_COMPLETION_BLOCK, CALL_ADD_EXECUTION_BLOCK, CALL_RESULT,
       CALL_WAIT_UNTIL_FINISHED, CALL_WAIT_UNTIL_ALL_FINISHED, CALL_ADD_DEPENDENCY, CALL_REMOVE_DEPENDENCY, \#
CALL_START };
static const char *callNames[] = { "cancel", "addOperation", "addOperations:waitUntilFinished:", "setCompletionBlock",
  "addExecutionBlock", "result", "waitUntilFinished", "waitUntilAllOperationsAreFinished", "addDependency",
  "removeDependency", "start" };

typedef struct { int kind, op, a, b; void *thread; NSString *text; } Event;
typedef struct { int kind, op, a, b; } Pattern;
#define MAX_EVENTS 100000
static Event events[MAX_EVENTS];
static int eventCount;
static NSLock *eventLock;               /* guards events and eventCount; a leaf: nothing is called under it */
static __thread int quiet;              /* > 0: the getters do not record (the observer reading a value) */
static NSMutableArray *ops, *queues;
static double unit = 0.001;             /* seconds per unit of work, as the harness's drivers */
static double bound;                    /* seconds a wait or a trigger may take before it counts as stuck */
#define OP(n) ((NSOperation *)[ops objectAtIndex: (n)])
#define Q(n) ((NSOperationQueue *)[queues objectAtIndex: (n)])

static void recordText(int kind, int op, int a, int b, NSString *text)
{
  [eventLock lock];
  if (eventCount < MAX_EVENTS)
    {
      Event e = { kind, op, a, b, (void *)[NSThread currentThread], [text retain] };
      events[eventCount++] = e;
    }
  [eventLock unlock];
}
static void record(int kind, int op, int a, int b) { recordText(kind, op, a, b, nil); }

static Pattern P(int kind, int op, int a, int b) { Pattern p = { kind, op, a, b }; return p; }

static BOOL matches(Event e, Pattern p)
{
  if (p.op >= 0 && e.op != p.op) return NO;
  switch (p.kind)
    {
      case EV_FINISHED:
        return (e.kind == EV_DID || e.kind == EV_READ) && e.a == K_IS_FINISHED && e.b == 1;
      case EV_FINISHING:
        return ((e.kind == EV_WILL || e.kind == EV_DID) && e.a == K_IS_FINISHED)
          || (e.kind == EV_READ && e.a == K_IS_FINISHED && e.b == 1) || e.kind == EV_COMPLETION_BEGAN;
      case EV_ACTIVE:
        return e.kind == EV_MAIN_BEGAN || e.kind == EV_BLOCK_BEGAN
          || ((e.kind == EV_DID || e.kind == EV_READ) && (e.a == K_IS_FINISHED || e.a == K_IS_EXECUTING) && e.b == 1);
      case EV_TASK_BEGAN: return e.kind == EV_MAIN_BEGAN || e.kind == EV_BLOCK_BEGAN;
      case EV_TASK_ENDED: return e.kind == EV_MAIN_ENDED || e.kind == EV_BLOCK_ENDED;
      default:
        return e.kind == p.kind && (p.a < 0 || e.a == p.a) && (p.b < 0 || e.b == p.b);
    }
}

/* The first event at or after `from` that matches, or -1. */
static int findFrom(Pattern p, int from)
{
  int i, n;

  [eventLock lock];
  n = eventCount;
  [eventLock unlock];
  for (i = from; i < n; i++)
    if (matches(events[i], p)) return i;
  return -1;
}
static int find(Pattern p) { return findFrom(p, 0); }

static NSString *describe(int i)
{
  Event e = events[i];
  NSMutableString *s = [NSMutableString stringWithFormat: @"#%d thread %p ", i, e.thread];

  if (e.kind == EV_SIGNAL || e.kind == EV_AWAITED)
    [s appendFormat: @"%s token %d%@", eventNames[e.kind], e.a, e.kind == EV_AWAITED ? (e.b ? @" received" : @" timed \#
out") : @""];
  else if (e.kind >= EV_CALL && e.kind <= EV_STUCK)
    [s appendFormat: @"%s %s %d", eventNames[e.kind], callNames[e.a], e.op];
  else if (e.kind == EV_WILL || e.kind == EV_DID || e.kind == EV_SET || e.kind == EV_READ)
    [s appendFormat: @"op %d %s %@%@", e.op, eventNames[e.kind], keyNames[e.a], e.b < 0 ? @"" : (e.b ? @" YES" : @" \#
NO")];
  else if (e.kind == EV_BLOCK_BEGAN || e.kind == EV_BLOCK_ENDED)
    [s appendFormat: @"op %d %s %d", e.op, eventNames[e.kind], e.a];
  else
    [s appendFormat: @"op %d %s%@", e.op, eventNames[e.kind], e.text ? [NSString stringWithFormat: @" \"%@\"", \#
e.text] : @""];
  return s;
}

/* ---- The checks: each returns nil when it holds, or what was seen instead ---- */

static NSString *occurs(Pattern p)
{
  return find(p) >= 0 ? nil : @"it never happened";
}
static NSString *never(Pattern p)
{
  int i = find(p);
  return i < 0 ? nil : [NSString stringWithFormat: @"it happened: %@", describe(i)];
}
static NSString *before(Pattern first, Pattern then)
{
  int t = find(then), f = find(first);

  if (t < 0 || (f >= 0 && f < t)) return nil;
  return f < 0 ? [NSString stringWithFormat: @"%@, and what must come before it never came", describe(t)]
    : [NSString stringWithFormat: @"%@ came before %@", describe(t), describe(f)];
}
static NSString *countIs(Pattern p, int n)
{
  int i = -1, count = 0;

  while ((i = findFrom(p, i + 1)) >= 0) count++;
  return count == n ? nil : [NSString stringWithFormat: @"it happened %d times", count];
}
static NSString *valuesAfter(Pattern anchor, Pattern p, int value)
{
  int i = find(anchor);

  if (i < 0) return nil;
  while ((i = findFrom(p, i + 1)) >= 0)
    if (events[i].b != value) return [NSString stringWithFormat: @"%@", describe(i)];
  return nil;
}
static NSString *callsAfterThrow(int call, int op, Pattern anchor)
{
  int a = find(anchor), i = a;

  if (a < 0) return nil;
  while ((i = findFrom(P(EV_CALL, op, call, -1), i + 1)) >= 0)
    {
      int r = findFrom(P(EV_RETURNED, op, call, -1), i + 1);
      int t = findFrom(P(EV_THREW, op, call, -1), i + 1);
      if (r >= 0 && (t < 0 || r < t)) return [NSString stringWithFormat: @"%@ (after %@)", describe(r), describe(a)];
    }
  return nil;
}
static NSString *duringCall(int call, int op, Pattern p)
{
  int i = -1;

  while ((i = findFrom(P(EV_CALL, op, call, -1), i + 1)) >= 0)
    {
      int r = findFrom(P(EV_RETURNED, op, call, -1), i + 1), seen = findFrom(p, i + 1);
      if (r >= 0 && (seen < 0 || seen > r)) return [NSString stringWithFormat: @"nothing between %@ and %@", \#
describe(i), describe(r)];
    }
  return nil;
}
static NSString *implies(Pattern p, Pattern q)
{
  int i = find(p);
  return i < 0 || find(q) >= 0 ? nil : [NSString stringWithFormat: @"%@, and then nothing", describe(i)];
}
static NSString *notDuring(Pattern p, Pattern from, Pattern to)
{
  int i, open = 0, n = eventCount;

  for (i = 0; i < n; i++)
    {
      if (matches(events[i], from)) open++;
      else if (matches(events[i], to) && open > 0) open--;
      else if (matches(events[i], p) && open > 0) return [NSString stringWithFormat: @"%@ while the span was open", \#
describe(i)];
    }
  return nil;
}
static NSString *balanced(int op)
{
  int i, k, n = eventCount;

  for (k = 0; k < K_THREAD_PRIORITY; k++)
    {
      NSMutableArray *open = [NSMutableArray array];    /* threads with a will-change not yet matched */
      for (i = 0; i < n; i++)
        {
          NSValue *t = [NSValue valueWithPointer: events[i].thread];
          if (events[i].op != op || events[i].a != k) continue;
          if (events[i].kind == EV_WILL) [open addObject: t];
          else if (events[i].kind == EV_DID)
            {
              NSUInteger at = [open indexOfObject: t];
              if (at == NSNotFound) return [NSString stringWithFormat: @"%@ with no will-change before it on its \#
thread", describe(i)];
              [open removeObjectAtIndex: at];
            }
        }
      if ([open count] > 0) return [NSString stringWithFormat: @"a will-change of %@ never followed by its \#
did-change", keyNames[k]];
    }
  return nil;
}
static NSString *bracketed(int op, int key)
{
  int i, n = eventCount;
  NSMutableArray *open = [NSMutableArray array];

  for (i = 0; i < n; i++)
    {
      NSValue *t = [NSValue valueWithPointer: events[i].thread];
      if (events[i].op != op || events[i].a != key) continue;
      if (events[i].kind == EV_WILL) [open addObject: t];
      else if (events[i].kind == EV_DID)
        {
          NSUInteger at = [open indexOfObject: t];
          if (at != NSNotFound) [open removeObjectAtIndex: at];
        }
      else if (events[i].kind == EV_SET && ![open containsObject: t])
        return [NSString stringWithFormat: @"%@ outside a will/did pair on its thread", describe(i)];
    }
  return nil;
}
static NSString *finishOrder(int op)
{
  int i, n = eventCount, seen = 0, from = find(P(EV_DID, op, K_IS_EXECUTING, 1));
  int want[4][2] = { { EV_WILL, K_IS_FINISHED }, { EV_WILL, K_IS_EXECUTING }, { EV_DID, K_IS_EXECUTING }, { EV_DID, \#
K_IS_FINISHED } };

  if (from < 0 || find(P(EV_DID, op, K_IS_FINISHED, 1)) < 0) return nil;
  for (i = from + 1; i < n && seen < 4; i++)
    {
      Event e = events[i];
      if (e.op != op || (e.kind != EV_WILL && e.kind != EV_DID) || (e.a != K_IS_FINISHED && e.a != K_IS_EXECUTING)) \#
continue;
      if (e.kind != want[seen][0] || e.a != want[seen][1]) return [NSString stringWithFormat: @"%@ came as \#
notification %d", describe(i), seen + 1];
      seen++;
    }
  return seen == 4 ? nil : @"the four notifications were not all sent";
}
static NSString *exclusive(int op)
{
  int i, n = eventCount, executing = 0, finished = 0;

  for (i = 0; i < n; i++)
    {
      Event e = events[i];
      if (e.op != op || (e.kind != EV_READ && e.kind != EV_DID) || e.b < 0) continue;
      if (e.a == K_IS_EXECUTING) executing = e.b;
      else if (e.a == K_IS_FINISHED) finished = e.b;
      else continue;
      if (executing && finished) return [NSString stringWithFormat: @"isExecuting YES and isFinished YES, the second \#
at %@", describe(i)];
    }
  return nil;
}
static NSString *startAnnounces(int op)
{
  int began = find(P(EV_MAIN_BEGAN, op, -1, -1)), ended = -1, i = -1;

  if (began < 0) return nil;
  while ((i = findFrom(P(EV_MAIN_ENDED, op, -1, -1), i + 1)) >= 0) ended = i;
  i = find(P(EV_DID, op, K_IS_EXECUTING, 1));
  if (i < 0 || i > began) return [NSString stringWithFormat: @"no did-change isExecuting YES before %@", \#
describe(began)];
  if (ended >= 0 && findFrom(P(EV_DID, op, K_IS_FINISHED, 1), ended + 1) < 0)
    return [NSString stringWithFormat: @"no did-change isFinished YES after %@", describe(ended)];
  return nil;
}
static NSString *atMostRunning(int *ops, int count, int width)
{
  int from[64], to[64], which[64], spans = 0, i, j, k;

  for (k = 0; k < count && spans < 64; k++)
    {
      int began = -1, ended = -1;
      for (i = 0; i < eventCount; i++)
        {
          Event e = events[i];
          if (e.op != ops[k]) continue;
          if (began < 0 && (e.kind == EV_START || e.kind == EV_MAIN_BEGAN || e.kind == EV_BLOCK_BEGAN)) began = i;
          if (e.kind == EV_MAIN_ENDED || e.kind == EV_BLOCK_ENDED) ended = i;
        }
      if (began < 0 || ended <= began) continue;
      from[spans] = began; to[spans] = ended; which[spans] = ops[k]; spans++;
    }
  for (i = 0; i < spans; i++)
    {
      int running = 0;
      NSMutableString *names = [NSMutableString string];
      for (j = 0; j < spans; j++)
        if (from[j] <= from[i] && to[j] > from[i])
          {
            running++;
            [names appendFormat: @"%@op %d", running > 1 ? @", " : @"", which[j]];
          }
      if (running > width)
        return [NSString stringWithFormat: @"%d ran at once (%@), the last starting at %@", running, names, \#
describe(from[i])];
    }
  return nil;
}
static NSString *threadPrefix(int op, NSString *prefix)
{
  int i = -1;

  while ((i = findFrom(P(EV_THREAD, op, -1, -1), i + 1)) >= 0)
    if (![events[i].text hasPrefix: prefix]) return [NSString stringWithFormat: @"%@", describe(i)];
  return nil;
}

/* ---- What operations and the program do ---- */

static BOOL logged(int op, int key, BOOL value)
{
  if (quiet == 0) record(EV_READ, op, key, value ? 1 : 0);
  return value;
}
static void taskThread(int op)
{
  NSString *name = [[NSThread currentThread] name];
  recordText(EV_THREAD, op, -1, -1, name ? name : @"");
}
static void work(int units)
{
  [NSThread sleepForTimeInterval: units * unit];
}

static NSCondition *tokenLock;          /* guards signalled */
static NSMutableSet *signalled;
static void signalToken(int t)
{
  record(EV_SIGNAL, -1, t, -1);
  [tokenLock lock];
  [signalled addObject: [NSNumber numberWithInt: t]];
  [tokenLock broadcast];
  [tokenLock unlock];
}
static BOOL tokenSignalled(int t)
{
  BOOL yes;
  [tokenLock lock];
  yes = [signalled containsObject: [NSNumber numberWithInt: t]];
  [tokenLock unlock];
  return yes;
}
static void awaitToken(int t, int units)
{
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: units * unit];
  BOOL got;

  [tokenLock lock];
  while (!(got = [signalled containsObject: [NSNumber numberWithInt: t]]) && [tokenLock waitUntilDate: deadline])
    ;
  got = [signalled containsObject: [NSNumber numberWithInt: t]];
  [tokenLock unlock];
  record(EV_AWAITED, -1, t, got ? 1 : 0);
}

@implementation StepsBlock
static void invokeStepsBlock(void *me)
{
  StepsBlock *b = (StepsBlock *)me;
  record(b->role ? EV_COMPLETION_BEGAN : EV_BLOCK_BEGAN, b->op, b->role ? -1 : b->number, -1);
  if (!b->role) taskThread(b->op);
  b->body();
  record(b->role ? EV_COMPLETION_ENDED : EV_BLOCK_ENDED, b->op, b->role ? -1 : b->number, -1);
}
+ (id) block: (void (*)(void))body op: (int)op number: (int)number role: (int)role
{
  StepsBlock *b = [self new];
  b->flags = 0; b->reserved = 0; b->invoke = invokeStepsBlock;
  b->body = body; b->op = op; b->number = number; b->role = role;
  return b;                     /* kept for the program's life: GNUstep releases what it copied */
}
- (id) copyWithZone: (NSZone *)zone { return [self retain]; }
@end

/* Records every notification of the keys an operation announces: will-change, and did-change
 * with the value right after it (read without recording it as a read). */
@interface Observer : NSObject
@end
@implementation Observer
- (void) observeValueForKeyPath: (NSString *)keyPath ofObject: (id)object change: (NSDictionary *)change context: \#
(void *)context
{
  int op = (int)[ops indexOfObjectIdenticalTo: object], k;
  BOOL prior = [[change objectForKey: NSKeyValueChangeNotificationIsPriorKey] boolValue];
  int value = -1;

  for (k = 0; k < K_THREAD_PRIORITY && ![keyNames[k] isEqual: keyPath]; k++)
    ;
  if (!prior && k <= K_IS_READY)
    {
      quiet++;
      value = [[object valueForKey: keyPath] boolValue] ? 1 : 0;
      quiet--;
    }
  record(prior ? EV_WILL : EV_DID, op, k, value);
}
@end
static Observer *observer;
static void observe(NSOperation *op)
{
  int k;
  for (k = 0; k < K_THREAD_PRIORITY; k++)
    [op addObserver: observer forKeyPath: keyNames[k] options: NSKeyValueObservingOptionPrior | \#
NSKeyValueObservingOptionNew context: NULL];
}

static void startOp(int op)
{
  @try { [OP(op) start]; }
  @catch (NSException *e) { }   /* recorded by the start override */
}
@interface Spawner : NSObject { @public int op; BOOL start; } @end
@implementation Spawner
- (void) run: (id)unused
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  if (start) startOp(op);
  else { @try { [OP(op) main]; } @catch (NSException *e) { } }
  [pool release];
}
@end
static void spawn(int op, BOOL start)
{
  Spawner *s = [Spawner new];
  s->op = op; s->start = start;
  [NSThread detachNewThreadSelector: @selector(run:) toTarget: s withObject: nil];
}

/* A call that may never return runs on a thread of its own; the program waits for it at most
 * `bound` seconds, then records it as stuck and goes on without it. */
@interface BoundedCall : NSObject { @public int call, target, wait; NSArray *batch; NSCondition *done; BOOL returned; \#
} @end
@implementation BoundedCall
- (void) run: (id)unused
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  if (call == CALL_WAIT_UNTIL_FINISHED) [OP(target) waitUntilFinished];
  else if (call == CALL_WAIT_UNTIL_ALL_FINISHED) [Q(target) waitUntilAllOperationsAreFinished];
  else [Q(target) addOperations: batch waitUntilFinished: (BOOL)wait];
  [done lock]; returned = YES; [done broadcast]; [done unlock];
  [pool release];
}
@end
static BOOL abandoned;                  /* a call did not return: the rest of the driver is skipped */
static void bounded(int call, int target, NSArray *batch, int wait)
{
  BoundedCall *c = [BoundedCall new];
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: bound];

  c->call = call; c->target = target; c->batch = [batch retain]; c->wait = wait; c->done = [NSCondition new];
  record(EV_CALL, target, call, -1);
  [NSThread detachNewThreadSelector: @selector(run:) toTarget: c withObject: nil];
  [c->done lock];
  while (!c->returned && [c->done waitUntilDate: deadline])
    ;
  [c->done unlock];
  if (c->returned) record(EV_RETURNED, target, call, -1);
  else { record(EV_STUCK, target, call, -1); abandoned = YES; }
}

/* A driver step's trigger: wait (at most `bound`) until an event matching it was recorded. */
static void after(Pattern p)
{
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: bound];
  while (find(p) < 0 && [deadline timeIntervalSinceNow] > 0)
    usleep(500);
}
static void afterFinished(int op)
{
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: bound];
  BOOL done = NO;
  while (!done && [deadline timeIntervalSinceNow] > 0)
    {
      quiet++; done = [OP(op) isFinished]; quiet--;
      if (!done) usleep(500);
    }
}
static void afterSignal(int t)
{
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: bound];
  while (!tokenSignalled(t) && [deadline timeIntervalSinceNow] > 0)
    usleep(500);
}
static void readKey(int op, int key)
{
  NSOperation *o = OP(op);
  switch (key)
    {
      case K_IS_CANCELLED: [o isCancelled]; break;      /* the getter overrides record these */
      case K_IS_EXECUTING: [o isExecuting]; break;
      case K_IS_FINISHED: [o isFinished]; break;
      case K_IS_READY: [o isReady]; break;
      case K_IS_CONCURRENT: record(EV_READ, op, key, [o isConcurrent] ? 1 : 0); break;
      case K_COMPLETION_BLOCK: record(EV_READ, op, key, [o completionBlock] != NULL ? 1 : 0); break;
      case K_QUEUE_PRIORITY: record(EV_READ, op, key, (int)[o queuePriority]); break;
      case K_DEPENDENCIES: record(EV_READ, op, key, (int)[[o dependencies] count]); break;
      case K_EXECUTION_BLOCKS: record(EV_READ, op, key, (int)[[(NSBlockOperation *)o executionBlocks] count]); break;
      default: [o threadPriority]; break;
    }
}
/* A call recorded with what became of it (variadic: the call's own commas are not arguments). */
#define CALL(kind, target, ...) \
  do { record(EV_CALL, target, kind, -1); \
       @try { __VA_ARGS__; record(EV_RETURNED, target, kind, -1); } \
       @catch (NSException *e) { record(EV_THREW, target, kind, -1); } } while (0)

/* Waits (at most `bound`) until every operation handed to a queue or started has finished,
 * then until nothing has been recorded for 0.2 s: completion blocks run after the finish. */
static void settle(int count, const int *handed)
{
  NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: bound];
  int i, seen = -1;
  for (i = 0; i < count; i++)
    {
      BOOL done = NO;
      while (!done && [deadline timeIntervalSinceNow] > 0)
        {
          quiet++; done = [OP(handed[i]) isFinished]; quiet--;
          if (!done) usleep(500);
        }
    }
  while (seen != eventCount && [deadline timeIntervalSinceNow] > 0)
    {
      seen = eventCount;
      usleep(200000);
    }
}
"""#
}
