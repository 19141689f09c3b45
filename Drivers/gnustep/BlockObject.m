/* BlockObject.m: block-shaped objects (see BlockObject.h). */
#import "BlockObject.h"
#import "Events.h"
#import "Interpreter.h"
#import "Recorder.h"
#include <objc/runtime.h>
#include <stddef.h>

/* The invoke function of every BlockObject: GNUstep passes the block itself. */
static void
invokeBlockObject(void *block)
{
  [(BlockObject *)block run];
}

/* The header GNUstep expects (GSBlocks.h, DEFINE_BLOCK_TYPE_NO_ARGS). */
struct BlockHeader
{
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void *);
};

BOOL
BlockLayoutIsRight(void)
{
  Class c = [BlockObject class];

  return ivar_getOffset(class_getInstanceVariable(c, "flags")) == offsetof(struct BlockHeader, flags)
    && ivar_getOffset(class_getInstanceVariable(c, "reserved")) == offsetof(struct BlockHeader, reserved)
    && ivar_getOffset(class_getInstanceVariable(c, "invoke")) == offsetof(struct BlockHeader, invoke);
}

@implementation BlockObject

- (id) init
{
  if ((self = [super init]) != nil)
    {
      flags = 0;
      reserved = 0;
      invoke = invokeBlockObject;
    }
  return self;
}

/* -setCompletionBlock: copies its argument; a block object is immutable, so a copy is itself. */
- (id) copyWithZone: (NSZone *)zone
{
  return [self retain];
}

- (void) run
{
}
@end

@implementation ExecutionBlock

+ (ExecutionBlock *) blockForOp: (NSInteger)anOp number: (NSInteger)aNumber body: (NSArray *)aBody
{
  ExecutionBlock *b = [self new];

  b->op = anOp;
  b->number = aNumber;
  b->body = [aBody retain];
  /* Not released here: NSBlockOperation's -addExecutionBlock: releases the result of
   * Block_copy, which for an object that is not a stack block is the object itself,
   * without having retained it. So this reference is the one the operation's list of blocks
   * gives back when the operation is deallocated (its case torn down, Interpreter.m). */
  return b;
}

- (void) run
{
  Record(EvBlockBegan(op, number));
  [TheInterpreter() run: body this: op];
  Record(EvBlockEnded(op, number));
}

- (void) dealloc
{
  DESTROY(body);
  [super dealloc];
}
@end

@implementation CompletionBlock

+ (CompletionBlock *) blockForOp: (NSInteger)anOp body: (NSArray *)aBody
{
  CompletionBlock *b = [self new];

  b->op = anOp;
  b->body = [aBody retain];
  return [b autorelease];
}

- (void) run
{
  /* Held for the run: a completion block replaced while it runs (setCompletionBlock: on a
   * finished operation) is released by the operation, and read after that its ivars were
   * garbage (an event naming "op 94399440957216", 2 replays of 3 of gnustep case 1138). */
  NSInteger	o = op;
  NSArray	*b = [body retain];

  [self retain];
  Record(EvCompletionBegan(o, [NSThread threadPriority]));
  [TheInterpreter() run: b this: o];
  Record(EvCompletionEnded(o));
  [b release];
  [self release];
}

- (void) dealloc
{
  DESTROY(body);
  [super dealloc];
}
@end
