/* Operations.m: the operation subclasses (see Operations.h).
 *
 * Objective-C has no mixins: the overrides three classes share are one macro
 * (LOGGED_OPERATION_OVERRIDES), the logging behind them the static functions below.
 */
#import "Operations.h"
#import "Interpreter.h"
#import "Recorder.h"

static __thread int quietDepth = 0;
static __thread NSInteger announcedOp = -1;
static __thread Caller announcedRole = CallerQueue;

void BeginQuiet(void) { quietDepth++; }
void EndQuiet(void) { quietDepth--; }

void
AnnounceStart(NSInteger op, Caller role)
{
  announcedOp = op;
  announcedRole = role;
}

/* A getter's result, logged as a read unless the thread is in a quiet section. */
static BOOL
logged(NSInteger op, NSString *key, BOOL value)
{
  if (quietDepth == 0)
    {
      Record(EvRead(op, key, ValBool(value)));
    }
  return value;
}

/* The same, for a getter that holds its lock: the timing noise comes before it takes the
 * lock and after it lets go (Perturb, Recorder.h). */
static BOOL
loggedUnderLock(NSInteger op, NSString *key, BOOL value)
{
  if (quietDepth == 0)
    {
      RecordQuietly(EvRead(op, key, ValBool(value)));
    }
  return value;
}

/* The isReady override of every class: the inherited answer, and NO until the operation's
 * token (if it waits for one) has been signalled. The token is asked of the recorder, under
 * its lock, from whatever thread calls the getter (GNUstep's queue calls it from the thread
 * that adds the operation or sends its KVO). */
static BOOL
ready(BOOL inherited, BOOL waitsForToken, NSInteger token)
{
  return inherited && (!waitsForToken || [TheRecorder() hasToken: token]);
}

/* Logs the call of start, naming its caller, and returns the Call for returned/threw. */
static id
beginStart(NSInteger op)
{
  Caller by = CallerQueue;
  id call;

  if (announcedOp == op)
    {
      by = announcedRole;
      announcedOp = -1;
    }
  call = CallStart(op, by);
  Record(EvCall(call));
  return call;
}

/* What an exception escaping start or cancel looks like in the trace. It is raised again:
 * whoever called (the driver, the program, GNUstep's queue) sees what it would have seen. */
static void
threw(id call, NSException *e)
{
  Record(EvThrew(call, MisuseKindOf(e), MessageOf(e)));
}

/* Every class also overrides -valueForKey: to make its reads quiet: that is how GNUstep's KVO
 * fetches the old and new values of a notification, and those fetches are not getter calls
 * of anyone in the scenario. */

/* The overrides MainOperation, LoggedBlockOperation and LoggedInvocationOperation share, word
 * for word. Objective-C has no mixins and each must call its own superclass, so they are
 * written once here and expanded in each class. ProgramOperation has its own getters. */
#define LOGGED_OPERATION_OVERRIDES \
- (NSInteger) opIndex { return index; } \
- (void) setReadyAfterSignal: (NSInteger)token { waitsForToken = YES; readyToken = token; } \
- (void) start \
{ \
  id call = beginStart(index); \
  @try { [super start]; } \
  @catch (NSException *e) { threw(call, e); @throw; } \
  Record(EvReturned(call)); \
} \
- (void) cancel \
{ \
  id call = CallCancel(index); \
  Record(EvCall(call)); \
  @try { [super cancel]; } \
  @catch (NSException *e) { threw(call, e); @throw; } \
  Record(EvReturned(call)); \
} \
- (BOOL) isReady { return logged(index, @"isReady", ready([super isReady], waitsForToken, readyToken)); } \
- (BOOL) isExecuting { return logged(index, @"isExecuting", [super isExecuting]); } \
- (BOOL) isFinished { return logged(index, @"isFinished", [super isFinished]); } \
- (BOOL) isCancelled { return logged(index, @"isCancelled", [super isCancelled]); } \
- (id) valueForKey: (NSString *)key \
{ \
  id v = nil; \
  BeginQuiet(); \
  @try { v = [super valueForKey: key]; } \
  @finally { EndQuiet(); } \
  return v; \
}

/* The main of the block and invocation operations: their superclass's, bracketed by the log. */
#define LOGGED_SUPER_MAIN \
- (void) main \
{ \
  Record(EvMainBegan(index, [NSThread threadPriority])); \
  [super main]; \
  Record(EvMainEnded(index)); \
}

@implementation MainOperation

- (id) initWithIndex: (NSInteger)i body: (NSArray *)steps
{
  if ((self = [super init]) != nil)
    {
      index = i;
      body = [steps retain];
    }
  return self;
}

- (void) main
{
  Record(EvMainBegan(index, [NSThread threadPriority]));
  [TheInterpreter() run: body this: index];
  Record(EvMainEnded(index));
}

/* Ivars are released and set to nil before NSOperation's dealloc, which may still call this
 * object's methods (DESTROY sets nil, and a message to nil does nothing). */
- (void) dealloc
{
  DESTROY(body);
  [super dealloc];
}

LOGGED_OPERATION_OVERRIDES
@end

@implementation LoggedBlockOperation

- (id) initWithIndex: (NSInteger)i
{
  if ((self = [super init]) != nil)
    {
      index = i;
    }
  return self;
}

LOGGED_SUPER_MAIN
LOGGED_OPERATION_OVERRIDES
@end

/* The target of an invocation operation's NSInvocation: its method runs the body. It returns
 * an object because NSInvocationOperation's -result raises for a void method. */
@interface InvocationTarget : NSObject
{
@public
  NSInteger index;
  NSArray *body;
}
- (id) runBody;
@end

@implementation InvocationTarget
- (id) runBody
{
  [TheInterpreter() run: body this: index];
  return @"result";
}

- (void) dealloc
{
  DESTROY(body);
  [super dealloc];
}
@end

@implementation LoggedInvocationOperation

- (id) initWithIndex: (NSInteger)i body: (NSArray *)steps
{
  InvocationTarget *target = [[InvocationTarget new] autorelease];

  target->index = i;
  target->body = [steps retain];
  if ((self = [super initWithTarget: target selector: @selector(runBody) object: nil]) != nil)
    {
      index = i;
    }
  return self;
}

LOGGED_SUPER_MAIN
LOGGED_OPERATION_OVERRIDES
@end

@implementation ProgramOperation

- (id) initWithIndex: (NSInteger)i program: (OperationConfig *)config
{
  if ((self = [super init]) != nil)
    {
      index = i;
      program = [config retain];
      lock = [NSLock new];
    }
  return self;
}

- (NSInteger) opIndex { return index; }
- (OperationConfig *) program { return program; }
- (void) setReadyAfterSignal: (NSInteger)token { waitsForToken = YES; readyToken = token; }

- (void) dealloc
{
  DESTROY(program);
  DESTROY(lock);
  [super dealloc];
}

/* The store and its event happen under the lock the getters read and log under, so the
 * trace orders stores and reads as they happened (a store logged before it was made would
 * let a reader log the old value after it). Lock order: this lock, then the recorder's. */
- (void) setState: (NSString *)key to: (BOOL)value
{
  Perturb();
  [lock lock];
  if ([key isEqual: @"isExecuting"])
    executing = value;
  else if ([key isEqual: @"isFinished"])
    finished = value;
  RecordQuietly(EvSet(index, key, value));
  [lock unlock];
  Perturb();
}

- (void) superStart
{
  [super start];
}

- (BOOL) isConcurrent
{
  return program->overridesIsConcurrent ? YES : [super isConcurrent];
}

- (BOOL) isExecuting
{
  BOOL v;

  if (quietDepth == 0)
    Perturb();
  [lock lock];
  v = loggedUnderLock(index, @"isExecuting", executing);
  [lock unlock];
  if (quietDepth == 0)
    Perturb();
  return v;
}

- (BOOL) isFinished
{
  BOOL v;

  if (quietDepth == 0)
    Perturb();
  [lock lock];
  v = loggedUnderLock(index, @"isFinished", finished);
  [lock unlock];
  if (quietDepth == 0)
    Perturb();
  return v;
}

- (BOOL) isReady { return logged(index, @"isReady", ready([super isReady], waitsForToken, readyToken)); }
- (BOOL) isCancelled { return logged(index, @"isCancelled", [super isCancelled]); }

- (void) start
{
  id call = beginStart(index);

  /* The program's own steps catch what the calls they make raise; this is a backstop. */
  @try { [TheInterpreter() run: program->start this: index]; }
  @catch (NSException *e) { threw(call, e); @throw; }
  Record(EvReturned(call));
}

- (void) main
{
  Record(EvMainBegan(index, [NSThread threadPriority]));
  [TheInterpreter() run: program->main this: index];
  Record(EvMainEnded(index));
}

- (void) cancel
{
  id call = CallCancel(index);

  Record(EvCall(call));
  @try { [super cancel]; }
  @catch (NSException *e) { threw(call, e); @throw; }
  Record(EvReturned(call));
}

- (id) valueForKey: (NSString *)key
{
  id v = nil;

  BeginQuiet();
  @try { v = [super valueForKey: key]; }
  @finally { EndQuiet(); }
  return v;
}
@end
