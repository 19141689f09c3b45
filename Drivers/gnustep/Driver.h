/* Driver.h: the driving thread of a run (thread 0): configuration, the scenario's driver
 * steps each after its trigger, then a drain; and the stall watchdog (after
 * FoundationDriver.swift and FoundationDriverMain.swift).
 */
#import "Interpreter.h"

@interface Interpreter (Driving)
/* "Nothing is happening" windows, scaled by the scenario's longest silent step: a trigger
 * still missing after triggerQuiet of silence is not coming (at least 0.25 s); a driver call
 * that has not returned after stallQuiet of silence is stuck (at least 0.5 s). */
- (double) triggerQuiet;
- (double) stallQuiet;
/* Runs the scenario; returns the trace's last event (end, or hang naming what never finished). */
- (id) drive;
/* After the trace was closed with `end`: whether the case left nothing behind, so that this
 * process may take the next case (protocol 3, `"next": true`). Waits a little (bounded) for
 * the case's last threads to let go. YES: the operations' KVO registrations and dependencies
 * are removed, no thread but the caller's holds an operation, and releasing this interpreter
 * frees the case. NO: the process must say done without next and exit; what was torn down
 * by then does not matter, as the trace is closed. */
- (BOOL) leaveNothingBehind;
@end

/* Remembers the parent process, the harness: called first thing in main, before the request is
 * read. */
void RememberParent(void);
/* Starts the one watchdog thread of the process (main.m, once, before the first request): a
 * stalled driver call of the current case ends its trace with hang, writes done and exits the
 * process; a harness that died (the parent process is no longer the one RememberParent saw)
 * makes it exit at once. It watches whichever case is running, through the recorder. */
void StartWatchdog(void);
