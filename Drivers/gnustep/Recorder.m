/* Recorder.m: the global trace recorder (see Recorder.h). */
#import "Recorder.h"
#import "Events.h"
#import "JSON.h"
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

/* Active time: monotonic seconds that pass only while this process is being run. Every window
 * of the driver ("nothing happened for so long", rendezvous and drain deadlines) is measured on
 * it, so a machine that stops running the driver for a while (a loaded CI machine, a page-in
 * from a cold disk) does not turn a correct run into a hang. A heartbeat thread wakes every
 * BEAT seconds; a wake-up later than SLACK means the process was not run, and the time beyond
 * SLACK is not counted, nor is time past an overdue beat. Continuous, never goes back.
 * `lost` and `lastBeat` are read and written only under `clockLock`; the heartbeat calls no
 * Objective-C. Same design as the Swift driver's ActiveClock. */
#define BEAT 0.01
#define SLACK 0.03
static pthread_mutex_t clockLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t clockOnce = PTHREAD_ONCE_INIT;
static double origin, lastBeat, lost;

static double
Wall(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
Heartbeat(void *unused)
{
  struct timespec beat = { 0, (long)(BEAT * 1e9) };

  (void)unused;
  for (;;)
    {
      double wall, gap;

      nanosleep(&beat, NULL);
      pthread_mutex_lock(&clockLock);
      wall = Wall();
      gap = wall - lastBeat;
      if (gap > SLACK)
        lost += gap - SLACK;
      lastBeat = wall;
      pthread_mutex_unlock(&clockLock);
    }
  return NULL;
}

static void
StartClock(void)
{
  pthread_t thread;

  origin = lastBeat = Wall();
  lost = 0;
  pthread_create(&thread, NULL, Heartbeat, NULL);
  pthread_detach(thread);
}

double
Now(void)
{
  double wall, seen, t;

  pthread_once(&clockOnce, StartClock);
  pthread_mutex_lock(&clockLock);
  wall = Wall();
  seen = wall < lastBeat + SLACK ? wall : lastBeat + SLACK;
  t = seen - origin - lost;
  pthread_mutex_unlock(&clockLock);
  return t;
}

void
WriteMessage(id message)
{
  NSString *line = [JSONLine(message) stringByAppendingString: @"\n"];
  const char *p = [line UTF8String];
  size_t left = strlen(p);

  /* write(2), looping over short writes: stdio buffering would lose lines if we die. */
  while (left > 0)
    {
      ssize_t n = write(1, p, left);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return;
        }
      p += n;
      left -= (size_t)n;
    }
}

/* The key of a trigger in `occurred`: "started 3", "mainBegan 3", "blockBegan 3 1", "finished 3". */
static NSString *
triggerKey(TriggerType t, NSInteger op, NSInteger block)
{
  switch (t)
    {
      case TriggerStarted: return [NSString stringWithFormat: @"started %ld", (long)op];
      case TriggerMainBegan: return [NSString stringWithFormat: @"mainBegan %ld", (long)op];
      case TriggerBlockBegan: return [NSString stringWithFormat: @"blockBegan %ld %ld", (long)op, (long)block];
      default: return [NSString stringWithFormat: @"finished %ld", (long)op];
    }
}

static BOOL
isTrueValue(id value)
{
  return [[JCasePayload(value) objectForKey: @"_0"] isEqual: JTrue()]
    && [JCaseName(value) isEqual: @"bool"];
}

/* How an event changes the number of open frames: +1 when it begins something that must end
 * (a call, a main, a block, a completion block), -1 when it ends one, 0 otherwise. */
static int
frameDelta(NSString *name)
{
  if ([name isEqualToString: @"call"] || [name isEqualToString: @"mainBegan"]
    || [name isEqualToString: @"blockBegan"] || [name isEqualToString: @"completionBegan"])
    return 1;
  if ([name isEqualToString: @"returned"] || [name isEqualToString: @"threw"]
    || [name isEqualToString: @"mainEnded"] || [name isEqualToString: @"blockEnded"]
    || [name isEqualToString: @"completionEnded"])
    return -1;
  return 0;
}

static Recorder *shared = nil;

Recorder *
TheRecorder(void)
{
  /* First called by main() before any other thread exists, so no lock is needed. */
  if (shared == nil)
    {
      shared = [Recorder new];
    }
  return shared;
}

void
Record(id kind)
{
  [shared record: kind perturbing: YES];
}

void
RecordQuietly(id kind)
{
  [shared record: kind perturbing: NO];
}

void
Perturb(void)
{
  [shared perturb];
}

/* SplitMix64, as the reference engine's (Sources/ReferenceEngine/Xoshiro256.swift). */
static uint64_t
splitMixNext(uint64_t *state)
{
  uint64_t z;

  *state += 0x9E3779B97F4A7C15ULL;
  z = *state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* What a noise draw asks of its point: nothing, a yield, or a sleep of `micros`. */
typedef enum { NoiseNone, NoiseYield, NoiseSleep } NoiseKind;
typedef struct { NoiseKind kind; unsigned micros; } NoiseAction;

/* One draw of a thread's stream: its low 3 bits decide whether the point is perturbed (below
 * `level` of 8), bit 3 a yield or a sleep, the high 32 bits the sleep's length (1 to 20*level
 * microseconds). The same as TimingNoise.Draws.next() in the Swift driver. */
static NoiseAction
noiseDraw(uint64_t *state, NSInteger level)
{
  uint64_t x = splitMixNext(state);
  NoiseAction a = { NoiseNone, 0 };

  if ((NSInteger)(x & 7) >= level)
    return a;
  if (((x >> 3) & 1) == 0)
    {
      a.kind = NoiseYield;
      return a;
    }
  a.kind = NoiseSleep;
  a.micros = 1 + (unsigned)((x >> 32) % (uint64_t)(20 * level));
  return a;
}

static void
noisePerform(NoiseAction a)
{
  if (a.kind == NoiseYield)
    sched_yield();
  else if (a.kind == NoiseSleep)
    usleep(a.micros);
}

/* Which scenario queue the calling thread works for, or -1. GNUstep's worker threads keep
 * their queue in the thread dictionary ([NSOperationQueue currentQueue]); the main thread
 * answers the main queue, which is none of ours. */
static NSInteger
queueIndex(NSArray *identities, id q)
{
  NSUInteger i;

  if (q == nil || identities == nil)
    return -1;
  /* By address: a released queue's address is not reused by another queue of the case (the
   * case makes all its queues first). */
  for (i = 0; i < [identities count]; i++)
    {
      if ([[identities objectAtIndex: i] nonretainedObjectValue] == q)
        return (NSInteger)i;
    }
  return -1;
}

static NSInteger
queueOfCurrentThread(NSArray *identities)
{
  return queueIndex(identities, [NSOperationQueue currentQueue]);
}

@implementation Recorder

- (id) init
{
  if ((self = [super init]) != nil)
    {
      condition = [NSCondition new];
      threadNumbers = [NSMutableDictionary new];
      occurred = [NSMutableSet new];
      tokens = [NSMutableSet new];
      lastEventTime = Now();
    }
  return self;
}

/* openFrames and liveSpawned are not reset: a case is begun only after one that left them both
 * at 0 (leaveNothingBehind, Driver.m, asks nothingRunning before main.m answers next), and a
 * count set back to 0 would hide a thread of the last case that is still running. */
- (void) beginCaseWithStallQuiet: (double)quiet noise: (NSInteger)level seed: (uint64_t)seed
{
  [condition lock];
  noiseLevel = level;
  noiseSeed = seed;
  noiseThreads = 0;
  count = 0;
  [threadNumbers removeAllObjects];
  [occurred removeAllObjects];
  [tokens removeAllObjects];
  lastEventTime = Now();
  DESTROY(pendingCall);
  closed = NO;
  lastThread = 0;
  DESTROY(queues);
  stallQuiet = quiet;
  [condition unlock];
}

- (void) setQueues: (NSArray *)q
{
  [condition lock];
  ASSIGN(queues, q);
  [condition unlock];
}

- (NSOperationQueue *) queueNumbered: (NSInteger)i
{
  if (queues == nil || i < 0 || i >= (NSInteger)[queues count])
    return nil;
  return [[queues objectAtIndex: i] nonretainedObjectValue];
}

- (NSInteger) indexOfQueue: (id)q
{
  /* The list is set once before any operation runs and never changed: read without the lock,
   * as record: does. */
  return queueIndex(queues, q);
}

/* Called with `condition` held. */
- (void) emit: (id)kind thread: (NSInteger)thread
{
  NSString *name = JCaseName(kind);
  NSDictionary *p = JCasePayload(kind);
  id event = JObj(@"seq", JInt(count), @"thread", JInt(thread), @"kind", kind, nil);

  WriteMessage(JCase(@"event", JObj(@"_0", event, nil)));
  count++;
  lastThread = thread;
  lastEventTime = Now();

  /* What triggers and rendezvous wait for. */
  if ([name isEqual: @"call"] && [JCaseName([p objectForKey: @"_0"]) isEqual: @"start"])
    {
      NSInteger op = [[JCasePayload([p objectForKey: @"_0"]) objectForKey: @"_0"] integerValue];

      [occurred addObject: triggerKey(TriggerStarted, op, 0)];
    }
  else if ([name isEqual: @"mainBegan"])
    {
      [occurred addObject: triggerKey(TriggerMainBegan, [[p objectForKey: @"op"] integerValue], 0)];
    }
  else if ([name isEqual: @"blockBegan"])
    {
      [occurred addObject: triggerKey(TriggerBlockBegan, [[p objectForKey: @"op"] integerValue],
        [[p objectForKey: @"block"] integerValue])];
    }
  else if (([name isEqual: @"read"] || [name isEqual: @"didChange"] || [name isEqual: @"set"])
    && [[p objectForKey: @"_1"] isEqual: @"isFinished"])
    {
      id v = [p objectForKey: @"_2"];

      if ([name isEqual: @"set"] ? [v isEqual: JTrue()] : isTrueValue(v))
        {
          [occurred addObject: triggerKey(TriggerFinished, [[p objectForKey: @"op"] integerValue], 0)];
        }
    }
  else if ([name isEqual: @"signal"])
    {
      [tokens addObject: [p objectForKey: @"token"]];
    }
}

/* The calling thread's number, announcing it with threadStarted the first time.
 * Called with `condition` held; name and queue are found before taking it. */
- (NSInteger) currentThreadNamed: (NSString *)name queue: (NSInteger)queue
{
  NSNumber *key = [NSNumber numberWithUnsignedLong: (unsigned long)pthread_self()];
  NSNumber *n = [threadNumbers objectForKey: key];
  NSInteger thread;

  if (n != nil)
    return [n integerValue];
  thread = [threadNumbers count];
  [threadNumbers setObject: [NSNumber numberWithInteger: thread] forKey: key];
  [self emit: EvThreadStarted(name, queue) thread: thread];
  return thread;
}

/* The next draw of thread `thread`, its stream begun at its first draw of the case from the
 * schedule seed and its number (SplitMix64.derive, as the Swift driver). Called with
 * `condition` held, and only with noise. */
- (NoiseAction) drawForThread: (NSInteger)thread
{
  while (noiseThreads <= thread)
    {
      if (noiseThreads == noiseCapacity)
        {
          noiseCapacity = noiseCapacity * 2 + 16;
          noiseStates = realloc(noiseStates, (size_t)noiseCapacity * sizeof(uint64_t));
          if (noiseStates == NULL)
            {
              abort();
            }
        }
      {
        uint64_t derive = noiseSeed ^ ((uint64_t)noiseThreads * 0xD1B54A32D192ED03ULL);

        noiseStates[noiseThreads] = splitMixNext(&derive);
      }
      noiseThreads++;
    }
  return noiseDraw(&noiseStates[thread], noiseLevel);
}

/* Frames are counted even after the trace is closed: an event dropped because it came after
 * `end` (a late completion block) still says that code of the case is running. */
- (void) record: (id)kind perturbing: (BOOL)perturbing
{
  NSString *name = [[NSThread currentThread] name];
  NSInteger queue = queueOfCurrentThread(queues);
  int delta = frameDelta(JCaseName(kind));
  NoiseAction action = { NoiseNone, 0 };

  if (perturbing && noiseLevel > 0)
    [self perturb];
  [condition lock];
  openFrames += delta;
  if (!closed)
    {
      NSInteger thread = [self currentThreadNamed: (name ? name : @"") queue: queue];

      [self emit: kind thread: thread];
      [condition broadcast];
      if (perturbing && noiseLevel > 0)
        action = [self drawForThread: thread];
    }
  [condition unlock];
  noisePerform(action);
}

- (void) record: (id)kind
{
  [self record: kind perturbing: YES];
}

- (void) perturb
{
  NSNumber *key;
  NSNumber *n;
  NoiseAction action = { NoiseNone, 0 };

  /* Read without the lock, so that a case without noise pays nothing: beginCase sets it
   * before any thread of the case exists, and nothing else writes it. */
  if (noiseLevel == 0)
    return;
  key = [NSNumber numberWithUnsignedLong: (unsigned long)pthread_self()];
  [condition lock];
  n = [threadNumbers objectForKey: key];
  if (!closed && n != nil)
    action = [self drawForThread: [n integerValue]];
  [condition unlock];
  noisePerform(action);
}

/* Sleeps on the condition until `until` (monotonic seconds). Called with `condition` held. */
- (void) sleepUntil: (double)until
{
  double left = until - Now();

  if (left > 0)
    {
      [condition waitUntilDate: [NSDate dateWithTimeIntervalSinceNow: left]];
    }
}

- (BOOL) waitForTrigger: (DriverStep *)step timeout: (double)timeout quiet: (double)quiet
{
  BOOL signaled = step->trigger == TriggerSignaled;
  /* A signaled trigger waits for its token (triggerOp holds it), and no operation's finish
   * makes it hopeless: only the quiet window and the timeout do. */
  NSSet *pool = signaled ? tokens : occurred;
  id wanted = signaled ? (id)JInt(step->triggerOp) : (id)triggerKey(step->trigger, step->triggerOp, step->triggerBlock);
  NSString *finished = signaled ? nil : triggerKey(TriggerFinished, step->triggerOp, 0);
  double deadline = Now() + timeout;
  BOOL ok;

  [condition lock];
  while (![pool containsObject: wanted] && !(finished != nil && [occurred containsObject: finished]))
    {
      double now = Now();

      if (now >= deadline || now - lastEventTime >= quiet)
        break;
      [self sleepUntil: MIN(deadline, lastEventTime + quiet)];
    }
  ok = [pool containsObject: wanted];
  [condition unlock];
  return ok;
}

- (double) silence
{
  double s;

  [condition lock];
  s = Now() - lastEventTime;
  [condition unlock];
  return s;
}

- (void) setPending: (NSString *)call
{
  [condition lock];
  ASSIGN(pendingCall, call);
  [condition unlock];
}

- (BOOL) closeIfStalled
{
  BOOL done = NO;

  [condition lock];
  if (!closed && pendingCall != nil && Now() - lastEventTime >= stallQuiet)
    {
      NSString *what = [NSString stringWithFormat: @"%@ never returned; nothing happened for %.2f s",
        pendingCall, stallQuiet];

      /* On the thread of the last event: the watchdog speaks for a stuck thread. */
      [self emit: EvHang(what) thread: lastThread];
      closed = YES;
      done = YES;
      [condition broadcast];
    }
  [condition unlock];
  return done;
}

- (BOOL) closeWith: (id)last onCallingThread: (BOOL)onCallingThread
{
  NSString *name = [[NSThread currentThread] name];
  BOOL done = NO;

  [condition lock];
  if (!closed)
    {
      NSInteger thread = onCallingThread ? [self currentThreadNamed: (name ? name : @"") queue: -1] : lastThread;

      [self emit: last thread: thread];
      closed = YES;
      done = YES;
      [condition broadcast];
    }
  [condition unlock];
  return done;
}

- (BOOL) awaitToken: (NSInteger)t timeout: (double)timeout
{
  double deadline = Now() + timeout;
  NSNumber *key = JInt(t);
  BOOL ok;

  [condition lock];
  while (![tokens containsObject: key] && Now() < deadline)
    {
      [self sleepUntil: deadline];
    }
  ok = [tokens containsObject: key];
  [condition unlock];
  return ok;
}

- (BOOL) hasToken: (NSInteger)t
{
  BOOL ok;

  [condition lock];
  ok = [tokens containsObject: JInt(t)];
  [condition unlock];
  return ok;
}

- (void) idleFor: (double)seconds
{
  double end = Now() + seconds;
  double left;

  /* Now() stands still while the process is not run, so a stopped spell lengthens the idle
   * span instead of eating it. */
  while ((left = end - Now()) > 0)
    {
      usleep((useconds_t)(MIN(left, 0.1) * 1e6) + 1);        /* usleep takes under a second */
    }
}

- (void) spawnBegan
{
  [condition lock];
  liveSpawned++;
  [condition unlock];
}

- (void) spawnEnded
{
  [condition lock];
  liveSpawned--;
  [condition unlock];
}

- (BOOL) nothingRunning
{
  BOOL quiet;

  [condition lock];
  quiet = openFrames == 0 && liveSpawned == 0;
  [condition unlock];
  return quiet;
}

- (BOOL) settleQuiet: (double)quiet timeout: (double)timeout
{
  double deadline = Now() + timeout;
  BOOL ok = YES;

  [condition lock];
  while (Now() - lastEventTime < quiet)
    {
      if (Now() > deadline)
        {
          ok = NO;
          break;
        }
      [self sleepUntil: MIN(deadline, lastEventTime + quiet)];
    }
  [condition unlock];
  return ok;
}
@end
