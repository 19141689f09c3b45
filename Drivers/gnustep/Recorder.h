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
}
/* Starts a case: seq and thread numbers from 0, no triggers, tokens or pending call, not
 * closed, the last event now; `quiet` is the case's stall window, for closeIfStalled. Called
 * on the thread that reads the request (thread 0 of the case) before the case records
 * anything, and only when nothing of the previous case runs any more (main.m). */
- (void) beginCaseWithStallQuiet: (double)quiet;
/* The queues whose worker threads threadStarted names. Set once, before any operation runs. */
- (void) setQueues: (NSArray *)q;
/* Records one event (an EventKind from Events.h) on the calling thread. */
- (void) record: (id)kind;
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
/* Active seconds: monotonic time while this process is being run (see Recorder.m). */
double Now(void);
