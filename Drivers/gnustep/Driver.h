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
/* Starts the watchdog thread: a stalled driver call ends the trace with hang, writes done
 * and exits the process; a harness that died (the parent process is no longer the one
 * RememberParent saw) makes it exit at once. */
- (void) startWatchdog;
@end

/* Remembers the parent process, the harness: called first thing in main, before the request is
 * read. */
void RememberParent(void);
