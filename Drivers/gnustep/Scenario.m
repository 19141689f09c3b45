/* Scenario.m: reading a scenario from its JSON (the enumeration encoding of
 * Specs/scenario-format.md) and checking it (Scenario+Validation.swift, sentence for sentence
 * where the driver can run into the problem).
 *
 * Reading stops at the first shape error and reports it in one sentence; unknown step, action,
 * trigger or condition names are named ("unknown driver action 'frobnicate'").
 */
#import "Scenario.h"
#import "JSON.h"
#include <math.h>

/* Ownership: every object of a scenario retains what its ivars point to and releases it in
 * dealloc, and the reader releases each object it made once a list holds it. So a scenario,
 * released with its case, frees all of itself: a driver process serves many cases in a
 * session (protocol 3), and a leak per case would pile up. */

@implementation Condition
- (void) dealloc
{
  [a release];
  [b release];
  [super dealloc];
}
@end

@implementation Step
- (void) dealloc
{
  [key release];
  [name release];
  [cond release];
  [then release];
  [otherwise release];
  [body release];
  [super dealloc];
}
@end

@implementation OperationConfig
- (void) dealloc
{
  [body release];
  [blocks release];
  [start release];
  [main release];
  [routineNames release];
  [routineBodies release];
  [queuePriority release];
  [threadPriority release];
  [completion release];
  [readyAfterSignal release];
  [super dealloc];
}

- (NSArray *) routineNamed: (NSString *)aName
{
  NSUInteger i = [routineNames indexOfObject: aName];

  return i == NSNotFound ? nil : [routineBodies objectAtIndex: i];
}

- (BOOL) overridesStart
{
  return kind == KindConcurrent;
}

- (NSUInteger) blockCount
{
  return kind == KindBlock ? [blocks count] : 0;
}
@end

@implementation QueueConfig
- (void) dealloc
{
  [name release];
  [super dealloc];
}
@end

@implementation DriverStep
- (void) dealloc
{
  [ops release];
  [key release];
  [steps release];
  [text release];
  [super dealloc];
}
@end

@implementation Edge
@end

BOOL
IsStateKey(NSString *key)
{
  static NSArray *keys = nil;

  if (keys == nil)
    {
      keys = [[NSArray alloc] initWithObjects: @"isCancelled", @"isConcurrent", @"isExecuting",
        @"isFinished", @"isReady", @"dependencies", @"queuePriority", @"completionBlock",
        @"threadPriority", @"executionBlocks", nil];
    }
  return [key isKindOfClass: [NSString class]] && [keys containsObject: key];
}

/* The reader: every method returns nil/NO after recording the first problem in `error`. */
@interface ScenarioReader : NSObject
{
@public
  NSString *error;
}
- (Step *) step: (id)v in: (NSString *)place;
@end

@implementation ScenarioReader

- (BOOL) fail: (NSString *)message
{
  if (error == nil)
    {
      error = [message retain];
    }
  return NO;
}

- (id) field: (NSString *)key of: (NSDictionary *)d in: (NSString *)place
{
  id v = [d isKindOfClass: [NSDictionary class]] ? [d objectForKey: key] : nil;

  if (v == nil)
    {
      [self fail: [NSString stringWithFormat: @"%@ has no field '%@'", place, key]];
    }
  return v;
}

- (BOOL) integer: (id)v into: (NSInteger *)sink in: (NSString *)place
{
  double d;

  if (![v isKindOfClass: [NSNumber class]] || [v isKindOfClass: NSClassFromString(@"NSBoolNumber")])
    {
      return [self fail: [NSString stringWithFormat: @"%@ is not an integer", place]];
    }
  d = [v doubleValue];
  if (d != floor(d) || fabs(d) > 9.0e15)
    {
      return [self fail: [NSString stringWithFormat: @"%@ is not an integer", place]];
    }
  *sink = (NSInteger)d;
  return YES;
}

- (BOOL) intField: (NSString *)key of: (NSDictionary *)d into: (NSInteger *)sink in: (NSString *)place
{
  id v = [self field: key of: d in: place];

  return v != nil && [self integer: v into: sink in: [NSString stringWithFormat: @"%@'s '%@'", place, key]];
}

- (BOOL) boolField: (NSString *)key of: (NSDictionary *)d into: (BOOL *)sink in: (NSString *)place
{
  id v = [self field: key of: d in: place];

  if (v == nil)
    {
      return NO;
    }
  if (![v isKindOfClass: [NSNumber class]])
    {
      return [self fail: [NSString stringWithFormat: @"%@'s '%@' is not true or false", place, key]];
    }
  *sink = [v boolValue];
  return YES;
}

- (NSArray *) arrayField: (NSString *)key of: (NSDictionary *)d in: (NSString *)place
{
  id v = [self field: key of: d in: place];

  if (v != nil && ![v isKindOfClass: [NSArray class]])
    {
      [self fail: [NSString stringWithFormat: @"%@'s '%@' is not a list", place, key]];
      return nil;
    }
  return v;
}

- (NSString *) keyField: (NSString *)key of: (NSDictionary *)d in: (NSString *)place
{
  id v = [self field: key of: d in: place];

  if (v != nil && !IsStateKey(v))
    {
      [self fail: [NSString stringWithFormat: @"%@ names '%@', which is not a state key", place, v]];
      return nil;
    }
  return v;
}

/* The case name of an enumeration value, with its payload in *payload. */
- (NSString *) caseOf: (id)v payload: (NSDictionary **)payload in: (NSString *)place
{
  NSString *name = JCaseName(v);

  if (name == nil)
    {
      [self fail: [NSString stringWithFormat: @"%@ is not an enumeration value (an object with one key)", place]];
      return nil;
    }
  *payload = JCasePayload(v);
  return name;
}

- (BOOL) ref: (id)v into: (NSInteger *)sink in: (NSString *)place
{
  NSDictionary *p;
  NSString *c = [self caseOf: v payload: &p in: place];

  if ([c isEqual: @"this"])
    {
      *sink = REF_THIS;
      return YES;
    }
  if ([c isEqual: @"op"])
    {
      return [self intField: @"_0" of: p into: sink in: place];
    }
  if (c != nil)
    {
      [self fail: [NSString stringWithFormat: @"unknown operation reference '%@'", c]];
    }
  return NO;
}

- (Condition *) condition: (id)v in: (NSString *)place
{
  NSDictionary *p;
  NSString *c = [self caseOf: v payload: &p in: place];
  Condition *r;
  static NSArray *getters = nil;
  NSUInteger g;

  if (c == nil)
    {
      return nil;
    }
  if (getters == nil)
    {
      getters = [[NSArray alloc] initWithObjects: @"isCancelled", @"isReady", @"isConcurrent",
        @"isExecuting", @"isFinished", nil];
    }
  r = [Condition new];
  g = [getters indexOfObject: c];
  if (g != NSNotFound)
    {
      r->type = (ConditionType)g;       /* the first five ConditionType values, in this order */
      if (![self ref: [self field: @"_0" of: p in: place] into: &r->ref in: place])
        return nil;
    }
  else if ([c isEqual: @"not"])
    {
      r->type = CondNot;
      if ((r->a = [self condition: [self field: @"_0" of: p in: place] in: place]) == nil)
        return nil;
    }
  else if ([c isEqual: @"and"])
    {
      r->type = CondAnd;
      if ((r->a = [self condition: [self field: @"_0" of: p in: place] in: place]) == nil
        || (r->b = [self condition: [self field: @"_1" of: p in: place] in: place]) == nil)
        return nil;
    }
  else
    {
      [self fail: [NSString stringWithFormat: @"unknown condition '%@'", c]];
      return nil;
    }
  return r;
}

- (NSArray *) steps: (id)v in: (NSString *)place
{
  NSMutableArray *sink;

  if (![v isKindOfClass: [NSArray class]])
    {
      [self fail: [NSString stringWithFormat: @"%@ is not a list of steps", place]];
      return nil;
    }
  sink = [NSMutableArray array];
  for (id item in v)
    {
      Step *s = [self step: item in: place];

      if (s == nil)
        return nil;
      [sink addObject: s];
      [s release];                      /* step: returns an object it made (new) */
    }
  return sink;
}

/* steps:, retained: for an ivar, which owns what it points to. */
- (NSArray *) ownSteps: (id)v in: (NSString *)place
{
  return [[self steps: v in: place] retain];
}

- (Step *) step: (id)v in: (NSString *)place
{
  NSDictionary *p;
  NSString *c = [self caseOf: v payload: &p in: place];
  Step *s;

  if (c == nil)
    return nil;
  s = [Step new];
  if ([c isEqual: @"work"])
    {
      s->type = StepWork;
      if (![self intField: @"_0" of: p into: &s->n in: place]) return nil;
    }
  else if ([c isEqual: @"returnIfCancelled"]) s->type = StepReturnIfCancelled;
  else if ([c isEqual: @"readCurrentQueue"]) s->type = StepReadCurrentQueue;
  else if ([c isEqual: @"return"]) s->type = StepReturn;
  else if ([c isEqual: @"callMain"]) s->type = StepCallMain;
  else if ([c isEqual: @"callSuperStart"]) s->type = StepCallSuperStart;
  else if ([c isEqual: @"if"])
    {
      s->type = StepIf;
      if ((s->cond = [self condition: [self field: @"_0" of: p in: place] in: place]) == nil
        || (s->then = [self ownSteps: [self field: @"then" of: p in: place] in: place]) == nil
        || (s->otherwise = [self ownSteps: [self field: @"else" of: p in: place] in: place]) == nil)
        return nil;
    }
  else if ([c isEqual: @"repeat"])
    {
      s->type = StepRepeat;
      if (![self intField: @"_0" of: p into: &s->n in: place]
        || (s->body = [self ownSteps: [self field: @"_1" of: p in: place] in: place]) == nil)
        return nil;
    }
  else if ([c isEqual: @"willChange"] || [c isEqual: @"didChange"])
    {
      s->type = [c isEqual: @"willChange"] ? StepWillChange : StepDidChange;
      if ((s->key = [[self keyField: @"_0" of: p in: place] retain]) == nil) return nil;
    }
  else if ([c isEqual: @"willChangeUnprefixed"] || [c isEqual: @"didChangeUnprefixed"])
    {
      /* The unprefixed-keys flaw: the notification goes out under "finished" for isFinished,
       * so the step is a will/did-change of that name, which no observer of isFinished hears. */
      NSString *k = [self keyField: @"_0" of: p in: place];
      NSArray *prefixed = [NSArray arrayWithObjects: @"isCancelled", @"isConcurrent", @"isExecuting",
                                   @"isFinished", @"isReady", nil];
      if (k == nil) return nil;
      if (![prefixed containsObject: k])
        {
          [self fail: [NSString stringWithFormat: @"%@: %@ names %@, which has no `is` prefix (one of: %@)",
                                place, c, k, [prefixed componentsJoinedByString: @", "]]];
          return nil;
        }
      s->type = [c isEqual: @"willChangeUnprefixed"] ? StepWillChange : StepDidChange;
      s->key = [[[[k substringWithRange: NSMakeRange(2, 1)] lowercaseString]
                  stringByAppendingString: [k substringFromIndex: 3]] retain];
    }
  else if ([c isEqual: @"set"])
    {
      s->type = StepSet;
      if ((s->key = [[self keyField: @"_0" of: p in: place] retain]) == nil
        || ![self boolField: @"_1" of: p into: &s->flag in: place])
        return nil;
    }
  else if ([c isEqual: @"call"])
    {
      s->type = StepCall;
      s->name = [[self field: @"_0" of: p in: place] retain];
      if (![s->name isKindOfClass: [NSString class]])
        {
          [self fail: [NSString stringWithFormat: @"%@ calls a routine without a name", place]];
          return nil;
        }
    }
  else if ([c isEqual: @"spawn"])
    {
      id m = [self field: @"_0" of: p in: place];

      s->type = StepSpawn;
      if (![m isEqual: @"start"] && ![m isEqual: @"main"])
        {
          [self fail: [NSString stringWithFormat: @"%@ spawns method '%@'; only start and main exist", place, m]];
          return nil;
        }
      s->flag = [m isEqual: @"start"];
      if (![self ref: [self field: @"_1" of: p in: place] into: &s->ref in: place]) return nil;
    }
  else if ([c isEqual: @"start"] || [c isEqual: @"cancel"])
    {
      s->type = [c isEqual: @"start"] ? StepStart : StepCancel;
      if (![self ref: [self field: @"_0" of: p in: place] into: &s->ref in: place]) return nil;
    }
  else if ([c isEqual: @"read"])
    {
      s->type = StepRead;
      if ((s->key = [[self keyField: @"_0" of: p in: place] retain]) == nil
        || ![self ref: [self field: @"_1" of: p in: place] into: &s->ref in: place])
        return nil;
    }
  else if ([c isEqual: @"cancelAll"])
    {
      s->type = StepCancelAll;
      if (![self intField: @"_0" of: p into: &s->n in: place]) return nil;
    }
  else if ([c isEqual: @"signal"])
    {
      s->type = StepSignal;
      if (![self intField: @"_0" of: p into: &s->n in: place]) return nil;
    }
  else if ([c isEqual: @"await"])
    {
      s->type = StepAwait;
      if (![self intField: @"_0" of: p into: &s->n in: place]
        || ![self intField: @"timeout" of: p into: &s->timeout in: place])
        return nil;
    }
  else
    {
      [self fail: [NSString stringWithFormat: @"unknown step '%@' in %@", c, place]];
      return nil;
    }
  return s;
}

- (OperationConfig *) operation: (id)v in: (NSString *)place
{
  OperationConfig *o = [OperationConfig new];
  NSDictionary *p;
  NSString *c;
  id x;

  if (![v isKindOfClass: [NSDictionary class]])
    {
      [self fail: [NSString stringWithFormat: @"%@ is not an object", place]];
      return nil;
    }
  c = [self caseOf: [self field: @"kind" of: v in: place] payload: &p
                in: [NSString stringWithFormat: @"%@'s kind", place]];
  if (c == nil)
    return nil;
  if ([c isEqual: @"main"] || [c isEqual: @"invocation"])
    {
      o->kind = [c isEqual: @"main"] ? KindMain : KindInvocation;
      if ((o->body = [self ownSteps: [self field: @"_0" of: p in: place] in: place]) == nil)
        return nil;
    }
  else if ([c isEqual: @"block"])
    {
      NSArray *list = [self arrayField: @"_0" of: p in: place];
      NSMutableArray *blocks = [NSMutableArray array];

      if (list == nil)
        return nil;
      o->kind = KindBlock;
      for (id b in list)
        {
          NSArray *steps = [self steps: b in: [NSString stringWithFormat: @"%@ block %lu", place, (unsigned long)[blocks count]]];

          if (steps == nil)
            return nil;
          [blocks addObject: steps];
        }
      o->blocks = [blocks copy];
    }
  else if ([c isEqual: @"concurrent"])
    {
      NSDictionary *prog = [self field: @"_0" of: p in: place];
      NSArray *routines;
      NSMutableArray *names = [NSMutableArray array], *bodies = [NSMutableArray array];

      o->kind = KindConcurrent;
      if (prog == nil
        || ![self boolField: @"overridesIsConcurrent" of: prog into: &o->overridesIsConcurrent in: place]
        || (o->start = [self ownSteps: [self field: @"start" of: prog in: place] in: [place stringByAppendingString: @" start"]]) == nil
        || (o->main = [self ownSteps: [self field: @"main" of: prog in: place] in: [place stringByAppendingString: @" main"]]) == nil
        || (routines = [self arrayField: @"routines" of: prog in: place]) == nil)
        return nil;
      for (id r in routines)
        {
          id name = [self field: @"name" of: r in: place];
          NSArray *body;

          if (![name isKindOfClass: [NSString class]])
            {
              [self fail: [NSString stringWithFormat: @"%@ has a routine without a name", place]];
              return nil;
            }
          body = [self steps: [self field: @"body" of: r in: place]
                          in: [NSString stringWithFormat: @"%@ routine %@", place, name]];
          if (body == nil)
            return nil;
          [names addObject: name];
          [bodies addObject: body];
        }
      o->routineNames = [names copy];
      o->routineBodies = [bodies copy];
    }
  else
    {
      [self fail: [NSString stringWithFormat: @"unknown operation kind '%@'", c]];
      return nil;
    }
  if ((x = [v objectForKey: @"queuePriority"]) != nil && ![x isKindOfClass: [NSNull class]])
    {
      NSInteger raw;

      if (![self integer: x into: &raw in: [place stringByAppendingString: @"'s queuePriority"]])
        return nil;
      o->queuePriority = [[NSNumber alloc] initWithLongLong: raw];
    }
  if ((x = [v objectForKey: @"threadPriority"]) != nil && ![x isKindOfClass: [NSNull class]])
    {
      if (![x isKindOfClass: [NSNumber class]])
        {
          [self fail: [place stringByAppendingString: @"'s threadPriority is not a number"]];
          return nil;
        }
      o->threadPriority = [x retain];
    }
  if ((x = [v objectForKey: @"completion"]) != nil && ![x isKindOfClass: [NSNull class]])
    {
      if ((o->completion = [self ownSteps: x in: [place stringByAppendingString: @" completion block"]]) == nil)
        return nil;
    }
  if ((x = [v objectForKey: @"readyAfterSignal"]) != nil && ![x isKindOfClass: [NSNull class]])
    {
      NSInteger token;

      if (![self integer: x into: &token in: [place stringByAppendingString: @"'s readyAfterSignal"]])
        return nil;
      o->readyAfterSignal = [[NSNumber alloc] initWithLongLong: token];
    }
  return o;
}

/* How Swift prints a driver action (its default description), for hang messages. */
static NSString *
describeAction(NSString *name, NSDictionary *payload)
{
  NSArray *keys = [[payload allKeys] sortedArrayUsingSelector: @selector(compare:)];
  NSMutableArray *parts = [NSMutableArray array];
  NSMutableArray *ordered = [NSMutableArray array];

  /* Labelled fields come first in every DriverAction case except read(StateKey, op:),
   * whose _0 comes first; positional ones (_0, _1) are sorted by position. */
  for (NSString *k in keys)
    if (![k hasPrefix: @"_"]) [ordered addObject: k];
  for (NSString *k in keys)
    if ([k hasPrefix: @"_"])
      {
        if ([k isEqual: @"_0"]) [ordered insertObject: k atIndex: 0];
        else [ordered addObject: k];
      }
  for (NSString *k in ordered)
    {
      id v = [payload objectForKey: k];
      NSString *text;

      if ([v isKindOfClass: [NSArray class]])
        {
          BOOL numbers = YES;

          for (id e in v)
            if (![e isKindOfClass: [NSNumber class]]) numbers = NO;
          text = numbers ? [NSString stringWithFormat: @"[%@]", [v componentsJoinedByString: @", "]]
                         : [NSString stringWithFormat: @"[%lu steps]", (unsigned long)[v count]];
        }
      else if ([v isKindOfClass: NSClassFromString(@"NSBoolNumber")])
        text = [v boolValue] ? @"true" : @"false";
      else if ([v isKindOfClass: [NSString class]])
        text = [NSString stringWithFormat: @"OperationSpec.StateKey.%@", v];
      else
        text = [v description];
      [parts addObject: [k hasPrefix: @"_"] ? text : [NSString stringWithFormat: @"%@: %@", k, text]];
    }
  /* A case without fields (readMainQueue) prints as its bare name. */
  if ([keys count] == 0)
    return name;
  return [NSString stringWithFormat: @"%@(%@)", name, [parts componentsJoinedByString: @", "]];
}

- (DriverStep *) driverStep: (id)v in: (NSString *)place
{
  DriverStep *d = [DriverStep new];
  NSDictionary *p;
  NSString *c;
  id after = [v isKindOfClass: [NSDictionary class]] ? [v objectForKey: @"after"] : nil;
  static NSArray *names = nil;
  NSUInteger a;

  if (names == nil)
    {
      /* In ActionType order. */
      names = [[NSArray alloc] initWithObjects: @"add", @"addBatch", @"start", @"perform",
        @"cancel", @"cancelAll", @"suspend", @"resume", @"setMaxConcurrent", @"addDependency",
        @"removeDependency", @"waitUntilFinished", @"waitUntilAllFinished",
        @"setCompletionBlock", @"addExecutionBlock", @"setQueuePriority",
        @"setThreadPriority", @"read", @"readOperationCount", @"result", @"addBlock",
        @"readSuspended", @"sleep", @"releaseQueue", @"readOperations", @"readMainQueue",
        @"readQueueDeallocated", nil];
    }
  d->trigger = TriggerNone;
  if (after != nil && ![after isKindOfClass: [NSNull class]])
    {
      NSString *t = [self caseOf: after payload: &p in: [place stringByAppendingString: @"'s trigger"]];

      if (t == nil)
        return nil;
      if ([t isEqual: @"started"]) d->trigger = TriggerStarted;
      else if ([t isEqual: @"mainBegan"]) d->trigger = TriggerMainBegan;
      else if ([t isEqual: @"finished"]) d->trigger = TriggerFinished;
      else if ([t isEqual: @"blockBegan"])
        {
          d->trigger = TriggerBlockBegan;
          if (![self intField: @"block" of: p into: &d->triggerBlock in: place]) return nil;
        }
      else if ([t isEqual: @"signaled"]) d->trigger = TriggerSignaled;
      else
        {
          [self fail: [NSString stringWithFormat: @"unknown trigger '%@'", t]];
          return nil;
        }
      if (![self intField: @"_0" of: p into: &d->triggerOp in: place]) return nil;
    }
  c = [self caseOf: [self field: @"action" of: v in: place] payload: &p
                in: [place stringByAppendingString: @"'s action"]];
  if (c == nil)
    return nil;
  a = [names indexOfObject: c];
  if (a == NSNotFound)
    {
      [self fail: [NSString stringWithFormat: @"unknown driver action '%@'", c]];
      return nil;
    }
  d->action = (ActionType)a;
  d->text = [describeAction(c, p) retain];
  switch (d->action)
    {
      case ActAdd:
        if (![self intField: @"op" of: p into: &d->op in: place]
          || ![self intField: @"queue" of: p into: &d->queue in: place]) return nil;
        break;
      case ActAddBatch:
        {
          NSArray *list = [self arrayField: @"ops" of: p in: place];
          NSMutableArray *ops = [NSMutableArray array];

          if (list == nil) return nil;
          for (id o in list)
            {
              NSInteger n;

              if (![self integer: o into: &n in: [place stringByAppendingString: @"'s ops"]]) return nil;
              [ops addObject: JInt(n)];
            }
          d->ops = [ops copy];
          if (![self intField: @"queue" of: p into: &d->queue in: place]
            || ![self boolField: @"wait" of: p into: &d->wait in: place]) return nil;
        }
        break;
      case ActStart: case ActCancel: case ActWaitUntilFinished: case ActResult:
        if (![self intField: @"_0" of: p into: &d->op in: place]) return nil;
        break;
      case ActPerform: case ActSetCompletionBlock: case ActAddExecutionBlock:
        if (![self intField: @"op" of: p into: &d->op in: place]
          || (d->steps = [self ownSteps: [self field: @"_1" of: p in: place] in: place]) == nil) return nil;
        break;
      case ActCancelAll: case ActSuspend: case ActResume: case ActWaitUntilAllFinished:
      case ActReadOperationCount: case ActReadSuspended: case ActReleaseQueue: case ActReadOperations:
      case ActReadQueueDeallocated:
        if (![self intField: @"queue" of: p into: &d->queue in: place]) return nil;
        break;
      case ActReadMainQueue:
        break;                  /* no fields: {} */
      case ActAddBlock:
        if (![self intField: @"op" of: p into: &d->op in: place]
          || ![self intField: @"queue" of: p into: &d->queue in: place]) return nil;
        break;
      case ActSleep:
        if (![self intField: @"_0" of: p into: &d->number in: place]) return nil;
        break;
      case ActSetMaxConcurrent:
        if (![self intField: @"queue" of: p into: &d->queue in: place]
          || ![self intField: @"_1" of: p into: &d->number in: place]) return nil;
        break;
      case ActAddDependency: case ActRemoveDependency:
        if (![self intField: @"op" of: p into: &d->op in: place]
          || ![self intField: @"on" of: p into: &d->on in: place]) return nil;
        break;
      case ActSetQueuePriority:
        if (![self intField: @"op" of: p into: &d->op in: place]
          || ![self intField: @"_1" of: p into: &d->number in: place]) return nil;
        break;
      case ActSetThreadPriority:
        {
          id x;

          if (![self intField: @"op" of: p into: &d->op in: place]) return nil;
          x = [self field: @"_1" of: p in: place];
          if (![x isKindOfClass: [NSNumber class]])
            {
              [self fail: [place stringByAppendingString: @" sets a thread priority that is not a number"]];
              return nil;
            }
          d->priority = [x doubleValue];
        }
        break;
      case ActRead:
        if ((d->key = [[self keyField: @"_0" of: p in: place] retain]) == nil
          || ![self intField: @"op" of: p into: &d->op in: place]) return nil;
        break;
    }
  return d;
}

- (Scenario *) scenario: (id)json
{
  Scenario *s = [Scenario new];
  NSArray *list;
  NSMutableArray *sink;
  NSUInteger i;

  if (![json isKindOfClass: [NSDictionary class]])
    {
      [self fail: @"the scenario is not a JSON object"];
      return nil;
    }
  if (![self intField: @"format" of: json into: &s->format in: @"the scenario"])
    return nil;
  s->name = [[json objectForKey: @"name"] retain];

  if ((list = [self arrayField: @"queues" of: json in: @"the scenario"]) == nil)
    return nil;
  sink = [NSMutableArray array];
  for (i = 0; i < [list count]; i++)
    {
      NSString *place = [NSString stringWithFormat: @"queue %lu", (unsigned long)i];
      QueueConfig *q = [QueueConfig new];
      id queueName;

      if (![self intField: @"maxConcurrent" of: [list objectAtIndex: i] into: &q->maxConcurrent in: place]
        || ![self boolField: @"suspended" of: [list objectAtIndex: i] into: &q->suspended in: place])
        return nil;
      queueName = [[list objectAtIndex: i] objectForKey: @"name"];
      if (queueName != nil && ![queueName isKindOfClass: [NSNull class]])
        {
          if (![queueName isKindOfClass: [NSString class]])
            {
              [self fail: [place stringByAppendingString: @"'s name is not a string"]];
              return nil;
            }
          q->name = [queueName copy];
        }
      [sink addObject: q];
      [q release];
    }
  s->queues = [sink copy];

  if ((list = [self arrayField: @"operations" of: json in: @"the scenario"]) == nil)
    return nil;
  sink = [NSMutableArray array];
  for (i = 0; i < [list count]; i++)
    {
      OperationConfig *o = [self operation: [list objectAtIndex: i]
                                        in: [NSString stringWithFormat: @"operation %lu", (unsigned long)i]];

      if (o == nil)
        return nil;
      [sink addObject: o];
      [o release];                      /* operation:in: returns an object it made (new) */
    }
  s->operations = [sink copy];

  if ((list = [self arrayField: @"dependencies" of: json in: @"the scenario"]) == nil)
    return nil;
  sink = [NSMutableArray array];
  for (i = 0; i < [list count]; i++)
    {
      NSString *place = [NSString stringWithFormat: @"dependency %lu", (unsigned long)i];
      Edge *e = [Edge new];

      if (![self intField: @"op" of: [list objectAtIndex: i] into: &e->op in: place]
        || ![self intField: @"on" of: [list objectAtIndex: i] into: &e->on in: place])
        return nil;
      [sink addObject: e];
      [e release];
    }
  s->dependencies = [sink copy];

  if ((list = [self arrayField: @"driver" of: json in: @"the scenario"]) == nil)
    return nil;
  sink = [NSMutableArray array];
  for (i = 0; i < [list count]; i++)
    {
      DriverStep *d = [self driverStep: [list objectAtIndex: i]
                                    in: [NSString stringWithFormat: @"driver step %lu", (unsigned long)i]];

      if (d == nil)
        return nil;
      [sink addObject: d];
      [d release];                      /* driverStep:in: returns an object it made (new) */
    }
  s->driver = [sink copy];
  return s;
}
@end

/* Why a queue name cannot be used, or nil (Scenario.nameProblem): 1 to 64 characters (composed
 * character sequences, as Swift counts them), no control characters. */
static NSString *
nameProblem(NSString *name)
{
  NSUInteger i = 0, count = 0, length = [name length];
  NSCharacterSet *controls = [NSCharacterSet controlCharacterSet];

  if (length == 0)
    return @"is empty; leave name out for the implementation's default";
  while (i < length)
    {
      i = NSMaxRange([name rangeOfComposedCharacterSequenceAtIndex: i]);
      count++;
    }
  if (count > 64)
    return [NSString stringWithFormat: @"has %lu characters; allowed is 1 to 64", (unsigned long)count];
  if ([name rangeOfCharacterFromSet: controls].location != NSNotFound)
    return @"holds a control character";
  return nil;
}

/* Validation, after Scenario+Validation.swift. */
@interface Scenario (Checking)
- (void) check: (NSArray *)body in: (NSString *)place this: (NSInteger)this
       program: (OperationConfig *)program into: (NSMutableArray *)sink;
@end

@implementation Scenario

- (void) dealloc
{
  [name release];
  [queues release];
  [operations release];
  [dependencies release];
  [driver release];
  [super dealloc];
}

+ (Scenario *) scenarioFromJSON: (id)json error: (NSString **)error
{
  ScenarioReader *r = [[ScenarioReader new] autorelease];
  Scenario *s = [r scenario: json];

  if (s == nil)
    {
      *error = r->error ? r->error : @"the scenario cannot be read";
    }
  return [s autorelease];               /* scenario: made it (new); whoever runs it retains it */
}

- (void) op: (NSInteger)i place: (NSString *)place into: (NSMutableArray *)sink
{
  NSUInteger n = [operations count];

  if (i < 0 || i >= (NSInteger)n)
    [sink addObject: [NSString stringWithFormat: @"%@ names operation %ld, but the scenario has %lu (0..<%lu)",
      place, (long)i, (unsigned long)n, (unsigned long)n]];
}

- (void) queue: (NSInteger)i place: (NSString *)place into: (NSMutableArray *)sink
{
  NSUInteger n = [queues count];

  if (i < 0 || i >= (NSInteger)n)
    [sink addObject: [NSString stringWithFormat: @"%@ names queue %ld, but the scenario has %lu (0..<%lu)",
      place, (long)i, (unsigned long)n, (unsigned long)n]];
}

- (BOOL) validOp: (NSInteger)i
{
  return i >= 0 && i < (NSInteger)[operations count];
}

- (BOOL) isBlockAdded: (NSInteger)op
{
  for (DriverStep *d in driver)
    {
      if (d->action == ActAddBlock && d->op == op)
        return YES;
    }
  return NO;
}

- (BOOL) readsDeallocationOf: (NSInteger)q
{
  for (DriverStep *d in driver)
    {
      if (d->action == ActReadQueueDeallocated && d->queue == q)
        return YES;
    }
  return NO;
}

/* What the driver relies on for an operation that an addBlock action adds (the rest of
 * Scenario.problems()'s addBlock checks are the harness's): it is handed to a queue once, as
 * the single block of a block operation, and it has no configuration, since the queue makes
 * its operation object. */
- (void) checkBlockAdds: (NSMutableArray *)sink
{
  NSMutableArray *seen = [NSMutableArray array];

  for (DriverStep *d in driver)
    {
      NSNumber *key;
      OperationConfig *o;
      NSUInteger times = 0;

      if (d->action != ActAddBlock || ![self validOp: d->op])
        continue;
      key = [NSNumber numberWithInteger: d->op];
      if ([seen containsObject: key])
        continue;
      [seen addObject: key];
      for (DriverStep *e in driver)
        {
          if (e->action == ActAddBlock && e->op == d->op)
            times++;
        }
      if (times > 1)
        [sink addObject: [NSString stringWithFormat: @"operation %ld is added with addBlock %lu times; a block is handed to a queue once",
          (long)d->op, (unsigned long)times]];
      o = [operations objectAtIndex: d->op];
      if ([o blockCount] != 1)
        [sink addObject: [NSString stringWithFormat: @"addBlock adds operation %ld, which must be a block operation with exactly one block",
          (long)d->op]];
      if (o->queuePriority != nil || o->threadPriority != nil || o->completion != nil || o->readyAfterSignal != nil)
        [sink addObject: [NSString stringWithFormat: @"operation %ld is added with addBlock, so it cannot be configured (queuePriority, threadPriority, completion, readyAfterSignal): the queue makes its operation object",
          (long)d->op]];
    }
}

- (void) refs: (Condition *)c place: (NSString *)place into: (NSMutableArray *)sink
{
  switch (c->type)
    {
      case CondNot: [self refs: c->a place: place into: sink]; break;
      case CondAnd: [self refs: c->a place: place into: sink]; [self refs: c->b place: place into: sink]; break;
      default: if (c->ref != REF_THIS) [self op: c->ref place: place into: sink];
    }
}

- (void) check: (NSArray *)body in: (NSString *)place this: (NSInteger)this
       program: (OperationConfig *)program into: (NSMutableArray *)sink
{
  OperationConfig *me = [operations objectAtIndex: this];

  for (Step *s in body)
    {
      switch (s->type)
        {
          case StepWork:
            if (s->n < 0 || s->n > 1000000)
              [sink addObject: [NSString stringWithFormat: @"%@ works %ld units; allowed is 0...1000000", place, (long)s->n]];
            break;
          case StepIf:
            [self refs: s->cond place: place into: sink];
            [self check: s->then in: place this: this program: program into: sink];
            [self check: s->otherwise in: place this: this program: program into: sink];
            break;
          case StepRepeat:
            if (s->n < 0 || s->n > 10000)
              [sink addObject: [NSString stringWithFormat: @"%@ repeats %ld times; allowed is 0...10000", place, (long)s->n]];
            [self check: s->body in: place this: this program: program into: sink];
            break;
          case StepSet: case StepWillChange: case StepDidChange:
            if (s->type != StepSet && [s->key isEqual: @"executionBlocks"])
              {
                [sink addObject: [NSString stringWithFormat: @"%@ notifies executionBlocks, which is read only (it is not one of the observable key paths)", place]];
                break;
              }
            /* "executing" and "finished": the unprefixed-keys steps, held to the same rule. */
            if (s->type != StepSet && ![s->key isEqual: @"isExecuting"] && ![s->key isEqual: @"isFinished"]
              && ![s->key isEqual: @"executing"] && ![s->key isEqual: @"finished"])
              break;
            if (program == nil && ![me overridesStart])
              [sink addObject: [NSString stringWithFormat: @"%@ changes isExecuting or isFinished itself, which only a concurrent subclass (one overriding start) may do", place]];
            if (s->type == StepSet && ![s->key isEqual: @"isExecuting"] && ![s->key isEqual: @"isFinished"])
              [sink addObject: [NSString stringWithFormat: @"%@ sets %@, but only the isExecuting and isFinished ivars can be set", place, s->key]];
            break;
          case StepCall:
            if ([me routineNamed: s->name] == nil)
              [sink addObject: [NSString stringWithFormat: @"%@ calls routine \"%@\", which operation %ld does not define", place, s->name, (long)this]];
            break;
          case StepCallSuperStart:
            if (![me overridesStart])
              [sink addObject: [NSString stringWithFormat: @"%@ calls [super start], but operation %ld does not override start", place, (long)this]];
            break;
          case StepCancelAll:
            [self queue: s->n place: place into: sink];
            break;
          case StepSpawn: case StepStart: case StepCancel: case StepRead:
            if (s->ref != REF_THIS) [self op: s->ref place: place into: sink];
            if (s->type == StepRead && [s->key isEqual: @"executionBlocks"])
              {
                NSInteger target = s->ref == REF_THIS ? this : s->ref;

                if ([self validOp: target] && ((OperationConfig *)[operations objectAtIndex: target])->kind != KindBlock)
                  [sink addObject: [NSString stringWithFormat: @"%@ reads executionBlocks of operation %ld, which is not a block operation",
                    place, (long)target]];
              }
            break;
          case StepAwait:
            if (s->timeout <= 0 || s->timeout > 1000000)
              [sink addObject: [NSString stringWithFormat: @"%@ awaits with timeout %ld; allowed is 1...1000000", place, (long)s->timeout]];
            break;
          default:
            break;
        }
    }
}

- (NSArray *) problems
{
  NSMutableArray *sink = [NSMutableArray array];
  NSUInteger i, nOps = [operations count];

  if (format != 1)
    [sink addObject: [NSString stringWithFormat: @"the scenario's format is %ld, but this build reads format 1", (long)format]];
  for (i = 0; i < [queues count]; i++)
    {
      QueueConfig *q = [queues objectAtIndex: i];

      NSString *why;

      if (q->maxConcurrent < -1)
        [sink addObject: [NSString stringWithFormat: @"queue %lu has maxConcurrent %ld; use -1 for the default, or 0 or more",
          (unsigned long)i, (long)q->maxConcurrent]];
      if (q->name != nil && (why = nameProblem(q->name)) != nil)
        [sink addObject: [NSString stringWithFormat: @"queue %lu's name %@", (unsigned long)i, why]];
    }
  [self checkBlockAdds: sink];
  for (i = 0; i < nOps; i++)
    {
      OperationConfig *o = [operations objectAtIndex: i];
      NSString *place = [NSString stringWithFormat: @"operation %lu", (unsigned long)i];
      NSUInteger b;

      if (o->threadPriority != nil && !isfinite([o->threadPriority doubleValue]))
        [sink addObject: [place stringByAppendingString: @" has a thread priority that is not a number"]];
      switch (o->kind)
        {
          case KindMain: case KindInvocation:
            [self check: o->body in: place this: i program: nil into: sink];
            break;
          case KindBlock:
            if ([o->blocks count] == 0)
              [sink addObject: [place stringByAppendingString: @" is a block operation with no block"]];
            for (b = 0; b < [o->blocks count]; b++)
              [self check: [o->blocks objectAtIndex: b]
                       in: [NSString stringWithFormat: @"%@ block %lu", place, (unsigned long)b]
                     this: i program: nil into: sink];
            break;
          case KindConcurrent:
            [self check: o->start in: [place stringByAppendingString: @" start"] this: i program: o into: sink];
            [self check: o->main in: [place stringByAppendingString: @" main"] this: i program: o into: sink];
            for (b = 0; b < [o->routineNames count]; b++)
              [self check: [o->routineBodies objectAtIndex: b]
                       in: [NSString stringWithFormat: @"%@ routine %@", place, [o->routineNames objectAtIndex: b]]
                     this: i program: o into: sink];
            break;
        }
      if (o->completion != nil)
        [self check: o->completion in: [place stringByAppendingString: @" completion block"] this: i program: nil into: sink];
    }
  for (i = 0; i < [dependencies count]; i++)
    {
      Edge *e = [dependencies objectAtIndex: i];
      NSString *place = [NSString stringWithFormat: @"dependency %lu", (unsigned long)i];

      [self op: e->op place: place into: sink];
      [self op: e->on place: place into: sink];
    }
  for (i = 0; i < [driver count]; i++)
    {
      DriverStep *d = [driver objectAtIndex: i];
      NSString *place = [NSString stringWithFormat: @"driver step %lu", (unsigned long)i];
      NSInteger clamped = nOps == 0 ? 0 : MAX(0, MIN(d->op, (NSInteger)nOps - 1));

      if (d->trigger != TriggerNone && d->trigger != TriggerSignaled)
        {
          [self op: d->triggerOp place: [place stringByAppendingString: @"'s trigger"] into: sink];
          if (d->trigger == TriggerBlockBegan && [self validOp: d->triggerOp])
            {
              NSUInteger count = [[operations objectAtIndex: d->triggerOp] blockCount];

              if (d->triggerBlock < 0 || d->triggerBlock >= (NSInteger)count)
                [sink addObject: [NSString stringWithFormat: @"%@'s trigger names block %ld of operation %ld, which has %lu blocks",
                  place, (long)d->triggerBlock, (long)d->triggerOp, (unsigned long)count]];
            }
        }
      switch (d->action)
        {
          case ActAdd:
            [self op: d->op place: place into: sink];
            [self queue: d->queue place: place into: sink];
            break;
          case ActAddBatch:
            for (NSNumber *n in d->ops)
              [self op: [n integerValue] place: place into: sink];
            [self queue: d->queue place: place into: sink];
            if ([d->ops count] == 0)
              [sink addObject: [place stringByAppendingString: @" adds an empty batch"]];
            break;
          case ActStart: case ActCancel: case ActWaitUntilFinished: case ActRead:
            [self op: d->op place: place into: sink];
            if (d->action == ActRead && [d->key isEqual: @"executionBlocks"] && [self validOp: d->op]
              && ((OperationConfig *)[operations objectAtIndex: d->op])->kind != KindBlock)
              [sink addObject: [NSString stringWithFormat: @"%@ reads executionBlocks of operation %ld, which is not a block operation",
                place, (long)d->op]];
            break;
          case ActAddBlock:
            [self op: d->op place: place into: sink];
            [self queue: d->queue place: place into: sink];
            break;
          case ActSleep:
            if (d->number < 0 || d->number > 1000000)
              [sink addObject: [NSString stringWithFormat: @"%@ sleeps %ld units; allowed is 0...1000000", place, (long)d->number]];
            break;
          case ActPerform:
            [self op: d->op place: place into: sink];
            if ([self validOp: d->op])
              {
                OperationConfig *o = [operations objectAtIndex: d->op];

                [self check: d->steps in: place this: d->op
                    program: (o->kind == KindConcurrent ? o : nil) into: sink];
              }
            break;
          case ActCancelAll: case ActSuspend: case ActResume: case ActWaitUntilAllFinished:
          case ActReadOperationCount: case ActReadSuspended: case ActReleaseQueue: case ActReadOperations:
          case ActReadQueueDeallocated:
            [self queue: d->queue place: place into: sink];
            break;
          case ActReadMainQueue:
            break;
          case ActSetMaxConcurrent:
            [self queue: d->queue place: place into: sink];
            if (d->number < -1)
              [sink addObject: [NSString stringWithFormat: @"%@ sets maxConcurrent %ld; use -1 for the default, or 0 or more",
                place, (long)d->number]];
            break;
          case ActAddDependency: case ActRemoveDependency:
            [self op: d->op place: place into: sink];
            [self op: d->on place: place into: sink];
            break;
          case ActSetCompletionBlock:
            [self op: d->op place: place into: sink];
            if (nOps > 0)
              [self check: d->steps in: place this: clamped program: nil into: sink];
            break;
          case ActAddExecutionBlock:
            [self op: d->op place: place into: sink];
            if ([self validOp: d->op] && ((OperationConfig *)[operations objectAtIndex: d->op])->kind != KindBlock)
              [sink addObject: [NSString stringWithFormat: @"%@ adds an execution block to operation %ld, which is not a block operation",
                place, (long)d->op]];
            if (nOps > 0)
              [self check: d->steps in: place this: clamped program: nil into: sink];
            break;
          case ActSetQueuePriority:
            [self op: d->op place: place into: sink];
            break;
          case ActSetThreadPriority:
            [self op: d->op place: place into: sink];
            if (!isfinite(d->priority))
              [sink addObject: [place stringByAppendingString: @" sets a thread priority that is not a number"]];
            break;
          case ActResult:
            [self op: d->op place: place into: sink];
            if ([self validOp: d->op] && ((OperationConfig *)[operations objectAtIndex: d->op])->kind != KindInvocation)
              [sink addObject: [NSString stringWithFormat: @"%@ asks operation %ld for a result, but only invocation operations have one",
                place, (long)d->op]];
            break;
        }
    }
  [self releaseProblemsInto: sink];
  return sink;
}

/* Whether driver step `d` names a queue, and which. */
static BOOL
namedQueue(DriverStep *d, NSInteger *q)
{
  switch (d->action)
    {
      case ActAdd: case ActAddBatch: case ActCancelAll: case ActSuspend: case ActResume:
      case ActSetMaxConcurrent: case ActWaitUntilAllFinished: case ActReadOperationCount: case ActAddBlock:
      case ActReadSuspended: case ActReleaseQueue: case ActReadOperations: case ActReadQueueDeallocated:
        *q = d->queue;
        return YES;
      default:
        return NO;
    }
}

/* Adds the queues that cancelAll steps of `steps` name, at any depth. */
static void
cancelledQueues(NSArray *steps, NSMutableIndexSet *into)
{
  for (Step *s in steps)
    {
      if (s->type == StepCancelAll && s->n >= 0) [into addIndex: (NSUInteger)s->n];
      if (s->type == StepIf) { cancelledQueues(s->then, into); cancelledQueues(s->otherwise, into); }
      if (s->type == StepRepeat) cancelledQueues(s->body, into);
    }
}

/* A released queue is gone from the driver's hands (as Scenario+Validation.swift says): no
 * later driver step may name it, and no code may cancel its operations. The one step that
 * names a queue only after its release is readQueueDeallocated, which asks about a queue the
 * driver let go of: before the release the driver holds the queue, and the answer is known. */
- (void) releaseProblemsInto: (NSMutableArray *)sink
{
  NSMutableDictionary *releasedBy = [NSMutableDictionary dictionary];
  NSMutableIndexSet *cancelled = [NSMutableIndexSet indexSet];
  NSUInteger i;

  for (i = 0; i < [driver count]; i++)
    {
      DriverStep *d = [driver objectAtIndex: i];
      NSInteger q;
      NSNumber *by;

      if (!namedQueue(d, &q))
        continue;
      if (d->action == ActReadQueueDeallocated)
        {
          if ([releasedBy objectForKey: JInt(q)] == nil)
            [sink addObject: [NSString stringWithFormat:
              @"driver step %lu asks whether queue %ld was deallocated, but no step before it releases "
              @"the queue (releaseQueue); the driver holds it", (unsigned long)i, (long)q]];
        }
      else if ((by = [releasedBy objectForKey: JInt(q)]) != nil)
        [sink addObject: [NSString stringWithFormat: @"driver step %lu names queue %ld, which driver step %@ released; the driver no longer holds it",
          (unsigned long)i, (long)q, by]];
      else if (d->action == ActReleaseQueue)
        [releasedBy setObject: JInt((NSInteger)i) forKey: JInt(q)];
      if (d->steps != nil)
        cancelledQueues(d->steps, cancelled);
    }
  for (OperationConfig *o in operations)
    {
      cancelledQueues(o->body, cancelled);
      for (NSArray *b in o->blocks) cancelledQueues(b, cancelled);
      cancelledQueues(o->start, cancelled);
      cancelledQueues(o->main, cancelled);
      for (NSArray *b in o->routineBodies) cancelledQueues(b, cancelled);
      cancelledQueues(o->completion, cancelled);
    }
  for (i = 0; i < [queues count]; i++)
    {
      NSNumber *by = [releasedBy objectForKey: JInt((NSInteger)i)];

      if (by != nil && [cancelled containsIndex: i])
        [sink addObject: [NSString stringWithFormat: @"a step cancels all operations of queue %lu, which driver step %@ releases; code may run after the release, when the driver no longer holds it",
          (unsigned long)i, by]];
    }
}

static NSInteger
longest(NSArray *steps)
{
  NSInteger m = 0;

  for (Step *s in steps)
    {
      switch (s->type)
        {
          case StepWork: m = MAX(m, s->n); break;
          case StepAwait: m = MAX(m, s->timeout); break;
          case StepIf: m = MAX(m, MAX(longest(s->then), longest(s->otherwise))); break;
          case StepRepeat: m = MAX(m, longest(s->body)); break;
          default: break;
        }
    }
  return m;
}

- (NSInteger) longestSilentStep
{
  NSInteger m = 0;

  for (OperationConfig *o in operations)
    {
      switch (o->kind)
        {
          case KindMain: case KindInvocation: m = MAX(m, longest(o->body)); break;
          case KindBlock: for (NSArray *b in o->blocks) m = MAX(m, longest(b)); break;
          case KindConcurrent:
            m = MAX(m, MAX(longest(o->start), longest(o->main)));
            for (NSArray *b in o->routineBodies) m = MAX(m, longest(b));
            break;
        }
      if (o->completion != nil) m = MAX(m, longest(o->completion));
    }
  for (DriverStep *d in driver)
    {
      if (d->steps != nil) m = MAX(m, longest(d->steps));
      if (d->action == ActSleep) m = MAX(m, d->number);
    }
  return m;
}
@end
