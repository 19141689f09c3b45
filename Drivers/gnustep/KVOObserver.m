/* KVOObserver.m: turns KVO notifications into willChange/didChange events (see KVOObserver.h).
 *
 * The value an event carries is read when the notification arrives, through the property's
 * getter with logging off (Operations.h, quiet reads): before the change for a prior
 * notification, after it for the other. The change dictionary is not used for it because
 * GNUstep's KVO reuses the last notified new value as the next old value
 * (NSKeyValueObserving.m, -willChangeValueForKey:), which is stale when the property changed
 * without a notification; the trace wants the value at the time of the notification.
 */
#import "KVOObserver.h"
#import "Interpreter.h"
#import "Operations.h"
#import "Events.h"
#import "Recorder.h"

static NSArray *
observedKeys(void)
{
  static NSArray *keys = nil;

  if (keys == nil)
    {
      keys = [[NSArray alloc] initWithObjects: @"isCancelled", @"isConcurrent", @"isExecuting",
        @"isFinished", @"isReady", @"dependencies", @"queuePriority", @"completionBlock", nil];
    }
  return keys;
}

@implementation KVOObserver

- (void) observe: (NSOperation *)op
{
  NSKeyValueObservingOptions options = NSKeyValueObservingOptionPrior
    | NSKeyValueObservingOptionNew | NSKeyValueObservingOptionOld;

  /* Adding an observer makes GNUstep's KVO fetch nothing yet (no Initial option); no read
   * is logged. The registrations are removed (forget:) only when the case left nothing
   * behind and its operations are about to be released; otherwise the process ends with
   * _exit after `done`, and nothing is torn down. */
  for (NSString *key in observedKeys())
    {
      [op addObserver: self forKeyPath: key options: options context: NULL];
    }
}

/* Removing is what makes releasing the operations safe: GNUstep's KVO keeps the observer as
 * a plain pointer, and the last value of `dependencies` it notified (an array of operations)
 * in its change dictionary, which would keep those operations alive. */
- (void) forget: (NSOperation *)op
{
  for (NSString *key in observedKeys())
    {
      [op removeObserver: self forKeyPath: key];
    }
}

- (void) observeValueForKeyPath: (NSString *)keyPath
                       ofObject: (id)object
                         change: (NSDictionary *)change
                        context: (void *)context
{
  NSInteger op;
  BOOL prior;
  id value;

  if (![object conformsToProtocol: @protocol(LoggedOperation)])
    return;
  op = [object opIndex];
  prior = [[change objectForKey: NSKeyValueChangeNotificationIsPriorKey] boolValue];
  value = [TheInterpreter() quietValue: keyPath of: op];
  Record(prior ? EvWillChange(op, keyPath, value) : EvDidChange(op, keyPath, value));
}
@end
