/* Recorder.h: the trace of one run on real threads (after FoundationRecorder.swift).
 *
 * Events get a global sequence number and a small thread number as they are recorded and are
 * written at once, one protocol line each, with write(2) on standard output: a run that dies
 * loses nothing it had already seen. One NSCondition guards everything, and also lets the
 * driving thread sleep until a trigger, a rendezvous token or a quiet spell arrives.
 *
 * One recorder serves every case of the process (a session, protocol 3): beginCase: starts
 * each case afresh. It also counts what of the case may still be running (open frames, live
 * spawned threads), which decides whether the process can take another case.
 */
#import <Foundation/Foundation.h>
#import "Scenario.h"

/* Writes one protocol line (JSON object) to standard output, unbuffered. */
void WriteMessage(id message);

@interface Recorder : NSObject
{
  NSCondition *condition;
  NSInteger count;
  NSMutableDictionary *threadNumbers;   /* pthread id -> thread number */
  NSMutableSet *occurred;               /* trigger keys seen (see TriggerKey) */
  NSMutableSet *tokens;
  double lastEventTime;                 /* monotonic seconds */
  NSString *pendingCall;
  BOOL closed;
  NSInteger lastThread;
  NSArray *queues;                      /* the run's NSOperationQueues, for threadStarted */
  double stallQuiet;                    /* the case's stall window (Driver.h) */
  NSInteger openFrames;                 /* begun and not yet ended: see record: */
  NSInteger liveSpawned;                /* threads of spawn steps whose body has not ended */
  NSInteger noiseLevel;                 /* the request's timing noise, 0 to 3 (see Perturb) */
  uint64_t noiseSeed;                   /* the schedule seed the draws come from */
  uint64_t *noiseStates;                /* each thread's draw state, by thread number */
  NSInteger noiseThreads;               /* how many of noiseStates are set */
  NSInteger noiseCapacity;
}
/* Starts a case: seq and thread numbers from 0, no triggers, tokens or pending call, not
 * closed, the last event now; `quiet` is the case's stall window, for closeIfStalled; `level`
 * and `seed` the case's timing noise (0: none) and where its draws come from. Called on the
 * thread that reads the request (thread 0 of the case) before the case records anything, and
 * only when nothing of the previous case runs any more (main.m). */
- (void) beginCaseWithStallQuiet: (double)quiet noise: (NSInteger)level seed: (uint64_t)seed;
/* The queues whose worker threads threadStarted names: their identities (NSValues holding
 * each queue unretained), so that a queue the driver releases is not kept alive by the
 * recorder. Set once, before any operation runs. */
- (void) setQueues: (NSArray *)q;
/* The scenario's number of queue `q` (compared by identity), or -1. */
- (NSInteger) indexOfQueue: (id)q;
/* Queue `i`, not retained: for code of operations, which must not read the interpreter's list
 * (the driving thread changes it when it releases a queue). */
- (NSOperationQueue *) queueNumbered: (NSInteger)i;
/* Records one event (an EventKind from Events.h) on the calling thread. With timing noise and
 * `perturbing`, the thread makes its noise for this instrumented point before the event and
 * after it, outside the lock (none before a thread's first event: it has no number yet). A
 * caller holding a lock of its own records with perturbing NO and calls Perturb() before
 * taking its lock and once it has let go. */
- (void) record: (id)kind perturbing: (BOOL)perturbing;
- (void) record: (id)kind;
/* The calling thread's noise for a point recorded with perturbing NO (see Perturb). */
- (void) perturb;
/* Waits until the trigger happened (YES) or can no longer be expected (NO): its operation
 * finished without it, nothing was recorded for `quiet` seconds, or `timeout` ran out. A
 * signaled trigger has happened once its token was signalled. */
- (BOOL) waitForTrigger: (DriverStep *)step timeout: (double)timeout quiet: (double)quiet;
/* Seconds since the last event. */
- (double) silence;
/* Marks a driver call as in progress (nil: none is): what a stall is blamed on. */
- (void) setPending: (NSString *)call;
/* When a driver call is in progress and nothing was recorded for the case's stall window,
 * ends the trace with a hang naming the call and answers YES (the caller writes done and
 * exits); otherwise NO. One step under the lock: a case that ended, or a case that began
 * since, is never closed for a stall it did not have. */
- (BOOL) closeIfStalled;
/* Ends the trace with `last` (end or hang) and drops everything after it. onCallingThread NO:
 * on the thread of the last event (a watchdog speaking for a stuck thread). NO if it was
 * already closed. */
- (BOOL) closeWith: (id)last onCallingThread: (BOOL)onCallingThread;
/* Rendezvous: waits for token t at most `timeout` seconds. */
- (BOOL) awaitToken: (NSInteger)t timeout: (double)timeout;
/* Whether token t has been signalled (an isReady override asks, from any thread). Takes the
 * lock briefly; GNUstep may hold its own locks around the getter, and the recorder never
 * calls into GNUstep while holding its lock, so no lock-order cycle. */
- (BOOL) hasToken: (NSInteger)t;
/* The driving thread idles for `seconds` of active time (a sleep action). */
- (void) idleFor: (double)seconds;
/* Waits until nothing was recorded for `quiet` seconds, at most `timeout`. */
- (BOOL) settleQuiet: (double)quiet timeout: (double)timeout;
/* A thread of a spawn step: spawnBegan before it is started, spawnEnded as its body's last act. */
- (void) spawnBegan;
- (void) spawnEnded;
/* YES when no frame is open (every call has returned or thrown; every mainBegan, blockBegan
 * and completionBegan has its end) and no spawned thread is alive. */
- (BOOL) nothingRunning;
@end

/* The one recorder of this process. */
Recorder *TheRecorder(void);
/* Shorthand for [TheRecorder() record: kind]. */
void Record(id kind);
/* Records without timing noise: for a caller that holds a lock of its own (Operations.m). */
void RecordQuietly(id kind);
/* Timing noise (Specs/driver-protocol.md, "Timing noise"): at level L, the calling thread's
 * next draw perturbs this point with probability L/8, by sched_yield() or by a sleep of 1 to
 * 20*L microseconds, from a SplitMix64 stream of its own seeded from the schedule seed and its
 * thread number (as the Swift driver's TimingNoise draws). Nothing at level 0, or for a thread
 * that has recorded nothing in this case. Called with no lock of the driver held. */
void Perturb(void);
/* Active seconds: monotonic time while this process is being run (see Recorder.m). */
double Now(void);
