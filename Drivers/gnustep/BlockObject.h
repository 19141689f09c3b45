/* BlockObject.h: objects that GNUstep can call as blocks.
 *
 * Debian's GNUstep uses the GCC Objective-C runtime: gcc has no blocks, and clang's block
 * literals crash it. Without compiler blocks GNUstep declares a block as a pointer to
 * { void *isa; int flags; int reserved; void (*invoke)(void *); } and calls it as
 * block->invoke(block) (CALL_BLOCK_NO_ARGS in GNUstepBase/GSBlocks.h). An NSObject subclass
 * whose first ivars after isa are exactly those fields is such a block, and stays an object:
 * NSBlockOperation keeps it in an array, -setCompletionBlock: copies it (ASSIGNCOPY, so
 * -copyWithZone: answers the object itself).
 *
 * BlockLayoutIsRight() checks at start-up that the compiler laid the ivars out where
 * GNUstep will look for them.
 */
#import <Foundation/Foundation.h>

@interface BlockObject : NSObject
{
@public
  /* The block header: these three must come first, in this order. */
  int flags;                    /* 0: no descriptor, so _Block_copy leaves us alone */
  int reserved;
  void (*invoke)(void *);
}
/* What the block does when GNUstep calls it; subclasses override. */
- (void) run;
@end

/* A block of a block operation: blockBegan, its steps, blockEnded. */
@interface ExecutionBlock : BlockObject
{
  NSInteger op, number;
  NSArray *body;
}
+ (ExecutionBlock *) blockForOp: (NSInteger)op number: (NSInteger)number body: (NSArray *)body;
@end

/* A completion block: completionBegan (with the thread priority), its steps, completionEnded. */
@interface CompletionBlock : BlockObject
{
  NSInteger op;
  NSArray *body;
}
+ (CompletionBlock *) blockForOp: (NSInteger)op body: (NSArray *)body;
@end

BOOL BlockLayoutIsRight(void);
