/* Operations.h: the four kinds of operation of a scenario, as subclasses of GNUstep's classes
 * (after FoundationOperations.swift).
 *
 * Every subclass overrides the four state getters to log a `read` with the value they return
 * (GNUstep's own calls included: what NSOperation and NSOperationQueue saw is evidence too),
 * and overrides start and cancel to log `call` before and `returned` or `threw` after.
 */
#import <Foundation/Foundation.h>
#import <Foundation/NSInvocationOperation.h>
#import "Events.h"
#import "Scenario.h"

/* What the interpreter needs from any operation of the run. */
@protocol LoggedOperation
- (NSInteger) opIndex;
/* Gives the operation's class an isReady override that answers [super isReady] only once
 * token `token` has been signalled, and NO before (OperationConfig.readyAfterSignal; 004,
 * "Configuring Interoperation Dependencies"). Called once, before the operation is used. */
- (void) setReadyAfterSignal: (NSInteger)token;
@end

/* Quiet reads: while the calling thread is inside a quiet section, the overridden getters do
 * not log. KVO's own reads (the values it puts in change dictionaries, through -valueForKey:)
 * and the KVO observer's reads of the value a notification carries are quiet: they are not
 * getter calls of the program, the driver or the queue. */
void BeginQuiet(void);
void EndQuiet(void);

/* Who calls start. The driver and the operations' own code announce a start of `op` on the
 * calling thread just before calling it; the start override takes the announcement (once).
 * Any other start is the queue's: GNUstep's queue starts a concurrent operation on whatever
 * thread made it runnable (the one that added it, or the one that finished its dependency),
 * so a per-thread role would mislabel those. */
void AnnounceStart(NSInteger op, Caller role);

/* A subclass that overrides main with a step program; its start is NSOperation's. */
@interface MainOperation : NSOperation <LoggedOperation>
{
  NSInteger index;
  NSArray *body;
  BOOL waitsForToken;           /* setReadyAfterSignal: was called */
  NSInteger readyToken;
}
- (id) initWithIndex: (NSInteger)i body: (NSArray *)steps;
@end

/* An NSBlockOperation whose main is bracketed by mainBegan/mainEnded; its blocks are
 * ExecutionBlock objects (BlockObject.h). */
@interface LoggedBlockOperation : NSBlockOperation <LoggedOperation>
{
  NSInteger index;
  BOOL waitsForToken;
  NSInteger readyToken;
}
- (id) initWithIndex: (NSInteger)i;
@end

/* An NSInvocationOperation whose invocation calls -runBody on an InvocationTarget. */
@interface LoggedInvocationOperation : NSInvocationOperation <LoggedOperation>
{
  NSInteger index;
  BOOL waitsForToken;
  NSInteger readyToken;
}
- (id) initWithIndex: (NSInteger)i body: (NSArray *)steps;
@end

/* An asynchronous subclass running its step program: its own start, main, isExecuting,
 * isFinished and isConcurrent, and executing/finished ivars behind a lock. */
@interface ProgramOperation : NSOperation <LoggedOperation>
{
  NSInteger index;
  OperationConfig *program;
  NSLock *lock;
  BOOL executing, finished;
  BOOL waitsForToken;
  NSInteger readyToken;
}
- (id) initWithIndex: (NSInteger)i program: (OperationConfig *)config;
- (OperationConfig *) program;
/* Stores into the executing or finished ivar and logs the store under the getters' lock. */
- (void) setState: (NSString *)key to: (BOOL)value;
/* [super start], for the callSuperStart step. */
- (void) superStart;
@end
