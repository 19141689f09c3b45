/* Events.m: the JSON spelling of events, calls and values (see Events.h). */
#import "Events.h"
#import "JSON.h"
#import <Foundation/NSInvocationOperation.h>

static id
unary(NSString *name, id v)
{
  return JCase(name, JObj(@"_0", v, nil));
}

id ValBool(BOOL b) { return unary(@"bool", JBool(b)); }
id ValInt(NSInteger n) { return unary(@"int", JInt(n)); }
id ValDouble(double d) { return unary(@"double", JDouble(d)); }
id ValOps(NSArray *indices) { return unary(@"ops", indices); }

static NSString *
callerName(Caller c)
{
  switch (c)
    {
      case CallerDriver: return @"driver";
      case CallerProgram: return @"program";
      default: return @"queue";
    }
}

id CallStart(NSInteger op, Caller by) { return JCase(@"start", JObj(@"_0", JInt(op), @"by", callerName(by), nil)); }
id CallSuperStart(NSInteger op) { return unary(@"superStart", JInt(op)); }
id CallCancel(NSInteger op) { return unary(@"cancel", JInt(op)); }
id CallAddOperation(NSInteger op, NSInteger q) { return JCase(@"addOperation", JObj(@"_0", JInt(op), @"queue", JInt(q), nil)); }
id CallAddOperations(NSArray *ops, NSInteger q, BOOL wait)
{
  return JCase(@"addOperations", JObj(@"_0", ops, @"queue", JInt(q), @"wait", JBool(wait), nil));
}
id CallAddDependency(NSInteger op, NSInteger on) { return JCase(@"addDependency", JObj(@"_0", JInt(op), @"on", JInt(on), nil)); }
id CallRemoveDependency(NSInteger op, NSInteger on) { return JCase(@"removeDependency", JObj(@"_0", JInt(op), @"on", JInt(on), nil)); }
id CallSetCompletionBlock(NSInteger op) { return unary(@"setCompletionBlock", JInt(op)); }
id CallAddExecutionBlock(NSInteger op) { return unary(@"addExecutionBlock", JInt(op)); }
id CallSetQueuePriority(NSInteger op, NSInteger raw) { return JCase(@"setQueuePriority", JObj(@"_0", JInt(op), @"_1", JInt(raw), nil)); }
id CallSetThreadPriority(NSInteger op, double p) { return JCase(@"setThreadPriority", JObj(@"_0", JInt(op), @"_1", JDouble(p), nil)); }
id CallCancelAll(NSInteger q) { return JCase(@"cancelAll", JObj(@"queue", JInt(q), nil)); }
id CallReleaseQueue(NSInteger q) { return JCase(@"releaseQueue", JObj(@"queue", JInt(q), nil)); }
id CallSetSuspended(NSInteger q, BOOL s) { return JCase(@"setSuspended", JObj(@"queue", JInt(q), @"_1", JBool(s), nil)); }
id CallSetMaxConcurrent(NSInteger q, NSInteger n) { return JCase(@"setMaxConcurrent", JObj(@"queue", JInt(q), @"_1", JInt(n), nil)); }
id CallWaitUntilFinished(NSInteger op) { return unary(@"waitUntilFinished", JInt(op)); }
id CallWaitUntilAllFinished(NSInteger q) { return JCase(@"waitUntilAllFinished", JObj(@"queue", JInt(q), nil)); }
id CallResult(NSInteger op) { return unary(@"result", JInt(op)); }
id CallAddBlock(NSInteger op, NSInteger q) { return JCase(@"addBlock", JObj(@"_0", JInt(op), @"queue", JInt(q), nil)); }

id
EvThreadStarted(NSString *name, NSInteger queue)
{
  /* An absent queue is left out, as Swift's encoder does with a nil optional. */
  return JCase(@"threadStarted", JObj(@"name", name, @"queue", (queue >= 0 ? JInt(queue) : nil), nil));
}
id EvStepIssued(NSInteger i) { return unary(@"stepIssued", JInt(i)); }
id EvStepDone(NSInteger i) { return unary(@"stepDone", JInt(i)); }
id EvTriggerMissed(NSInteger i) { return unary(@"triggerMissed", JInt(i)); }
id EvCall(id call) { return unary(@"call", call); }
id EvReturned(id call) { return unary(@"returned", call); }
id EvThrew(id call, NSString *kind, NSString *message)
{
  return JCase(@"threw", JObj(@"_0", call, @"_1", kind, @"_2", message, nil));
}
id EvMainBegan(NSInteger op, double p) { return JCase(@"mainBegan", JObj(@"op", JInt(op), @"threadPriority", JDouble(p), nil)); }
id EvMainEnded(NSInteger op) { return JCase(@"mainEnded", JObj(@"op", JInt(op), nil)); }
id EvBlockBegan(NSInteger op, NSInteger b) { return JCase(@"blockBegan", JObj(@"op", JInt(op), @"block", JInt(b), nil)); }
id EvBlockEnded(NSInteger op, NSInteger b) { return JCase(@"blockEnded", JObj(@"op", JInt(op), @"block", JInt(b), nil)); }
id EvCompletionBegan(NSInteger op, double p) { return JCase(@"completionBegan", JObj(@"op", JInt(op), @"threadPriority", JDouble(p), nil)); }
id EvCompletionEnded(NSInteger op) { return JCase(@"completionEnded", JObj(@"op", JInt(op), nil)); }

static id
keyed(NSString *name, NSInteger op, NSString *key, id value)
{
  return JCase(name, JObj(@"op", JInt(op), @"_1", key, @"_2", value, nil));
}
id EvWillChange(NSInteger op, NSString *key, id value) { return keyed(@"willChange", op, key, value); }
id EvDidChange(NSInteger op, NSString *key, id value) { return keyed(@"didChange", op, key, value); }
id EvRead(NSInteger op, NSString *key, id value) { return keyed(@"read", op, key, value); }
id EvSet(NSInteger op, NSString *key, BOOL value) { return keyed(@"set", op, key, JBool(value)); }
id EvOperationCount(NSInteger q, NSInteger n) { return JCase(@"operationCount", JObj(@"queue", JInt(q), @"_1", JInt(n), nil)); }
id EvOperations(NSInteger q, NSArray *ops) { return JCase(@"operations", JObj(@"ops", ops, @"queue", JInt(q), nil)); }
id EvSuspended(NSInteger q, BOOL s) { return JCase(@"suspended", JObj(@"queue", JInt(q), @"_1", JBool(s), nil)); }
id
EvCurrentQueue(NSInteger op, NSInteger queue)
{
  /* None of the scenario's queues is a nil optional: left out, as Swift's encoder does. */
  return JCase(@"currentQueue", JObj(@"op", JInt(op), @"queue", (queue >= 0 ? JInt(queue) : nil), nil));
}
id
EvMainQueue(BOOL current, BOOL same, BOOL suspended)
{
  return JCase(@"mainQueue", JObj(@"current", JBool(current), @"same", JBool(same),
    @"suspended", JBool(suspended), nil));
}
id
EvQueueDeallocated(NSInteger q, BOOL deallocated)
{
  return JCase(@"queueDeallocated", JObj(@"deallocated", JBool(deallocated), @"queue", JInt(q), nil));
}
id EvWork(NSInteger op, NSInteger units) { return JCase(@"work", JObj(@"op", JInt(op), @"units", JInt(units), nil)); }
id EvSignal(NSInteger t) { return JCase(@"signal", JObj(@"token", JInt(t), nil)); }
id EvAwaited(NSInteger t, BOOL ok) { return JCase(@"awaited", JObj(@"token", JInt(t), @"satisfied", JBool(ok), nil)); }
id EvInvocationResult(NSInteger op) { return JCase(@"invocationResult", JObj(@"op", JInt(op), nil)); }
id EvHang(NSString *what) { return unary(@"hang", what); }
id EvUnsupported(NSString *why) { return unary(@"unsupported", why); }
id EvEnd(void) { return JCase(@"end", nil); }

NSString *
MisuseKindOf(NSException *e)
{
  NSString *reason = [e reason] ? [e reason] : @"";

  if ([[e name] isEqual: NSInvocationOperationCancelledException])
    return @"invocationCancelled";
  if ([reason rangeOfString: @"called on executing operation"].location != NSNotFound)
    return @"alreadyExecuting";
  if ([reason rangeOfString: @"called on finished operation"].location != NSNotFound)
    return @"alreadyFinished";
  if ([reason rangeOfString: @"not ready"].location != NSNotFound)
    return @"notReady";
  if ([reason rangeOfString: @"dependency on self"].location != NSNotFound)
    return @"selfDependency";
  return @"other";
}

NSString *
MessageOf(NSException *e)
{
  return [NSString stringWithFormat: @"%@: %@", [e name], [e reason]];
}
