/* KVOObserver.h: real key-value observation of every operation.
 *
 * GNUstep's NSOperation sends its KVO by hand (automaticallyNotifiesObserversForKey: is NO for
 * every key, NSOperation.m), and GNUstep's KVO supports NSKeyValueObservingOptionPrior: an
 * observer registered with it hears every willChangeValueForKey: (a "prior" notification)
 * as well as every didChangeValueForKey:. So the trace's willChange and didChange events are
 * what GNUstep really sent, from NSOperation's own code and from the step programs' explicit
 * willChange/didChange steps alike; the interpreter never logs them itself.
 */
#import <Foundation/Foundation.h>

@interface KVOObserver : NSObject
/* Observes every KVO key of the operation (the eight of StateKey.observable). */
- (void) observe: (NSOperation *)op;
/* Removes what observe: registered: before a clean case's operations are released
 * (Interpreter.m, tearDown). */
- (void) forget: (NSOperation *)op;
@end
