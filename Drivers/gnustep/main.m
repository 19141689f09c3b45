/* main.m: the gnustep driver's entry point (Specs/driver-protocol.md).
 *
 * Reads request lines from standard input, one case each: checks the request, answers hello,
 * runs the scenario (Driver.m) while streaming the trace, and writes done. A request of
 * protocol 2 is the process's only case: done, then _exit. In protocol 3 (a session) the
 * process reads the next request when the case left nothing behind (done says "next": true;
 * Driver.m, leaveNothingBehind, says what that takes), and otherwise, or after a hang, leaves
 * with _exit after done as in protocol 2: the run's threads and KVO registrations are never
 * torn down then, so nothing can crash or wait at exit. The end of standard input between
 * cases ends the process with status 0, writing nothing. A request that cannot be run is
 * answered with one error sentence and exit status 2.
 */
#import <Foundation/Foundation.h>
#import "BlockObject.h"
#import "Driver.h"
#import "JSON.h"
#import "Recorder.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What this driver really observes (Specs/implementations/gnustep.md says how), and
 * apiSurface2, apiSurface3 and apiSurface4: it performs every construct of API surfaces 2, 3
 * and 4 (Specs/api-surface.md), surface 4's being readMainQueue and readQueueDeallocated (not
 * dispatchQueues: GNUstep Base's queues have no underlyingQueue);
 * undefinedQueuePriorities: -setQueuePriority: takes any NSInteger; and
 * timingNoise for a case run with timing noise (informational: no rule needs it). */
static NSArray *
capabilities(NSInteger noise)
{
  NSArray *all = [NSArray arrayWithObjects: @"apiSurface2", @"apiSurface3", @"apiSurface4", @"finishing", @"kvo",
    @"superStart", @"threadIdentity", @"threadNames", @"threadPriority", @"thrownErrors",
    @"undefinedQueuePriorities", nil];

  return noise > 0 ? [all arrayByAddingObject: @"timingNoise"] : all;
}

static void
refuse(NSString *sentence)
{
  WriteMessage(JCase(@"error", JObj(@"_0", sentence, nil)));
  _exit(2);
}

/* Standard input, read a line at a time. Bytes after a newline are kept for the next line:
 * in a session (protocol 3) the harness writes the next request only after `done`, but a
 * file piped in holds them all at once. */
static char *inputBuffer = NULL;
static size_t inputLength = 0, inputCapacity = 0;

/* The next line of standard input, without its newline; at the end of input, what is left
 * of an unfinished last line; nil when standard input ended with nothing left. */
static NSData *
readLine(void)
{
  for (;;)
    {
      char *nl = inputLength > 0 ? memchr(inputBuffer, '\n', inputLength) : NULL;
      ssize_t n;

      if (nl != NULL)
        {
          size_t used = (size_t)(nl - inputBuffer) + 1;
          NSData *line = [NSData dataWithBytes: inputBuffer length: used - 1];

          memmove(inputBuffer, inputBuffer + used, inputLength - used);
          inputLength -= used;
          return line;
        }
      if (inputCapacity - inputLength < 4096)
        {
          inputCapacity = inputCapacity * 2 + 4096;
          inputBuffer = realloc(inputBuffer, inputCapacity);
          if (inputBuffer == NULL)
            {
              refuse(@"the driver ran out of memory reading its request");
            }
        }
      n = read(0, inputBuffer + inputLength, inputCapacity - inputLength);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          NSData *rest = inputLength > 0 ? [NSData dataWithBytes: inputBuffer length: inputLength] : nil;

          inputLength = 0;
          return rest;
        }
      inputLength += (size_t)n;
    }
}

static NSInteger
integerField(NSDictionary *request, NSString *key)
{
  id v = [request objectForKey: key];

  if (![v isKindOfClass: [NSNumber class]] || [v doubleValue] != (double)[v longLongValue])
    {
      refuse([NSString stringWithFormat: @"the request's '%@' is missing or not an integer", key]);
    }
  return [v integerValue];
}

/* Serves one request: refuses it (exit 2), or answers hello, runs the case and ends its trace.
 * Answers YES when the process takes another case: protocol 3, the case ended with `end`, and
 * it left nothing behind (Driver.h, leaveNothingBehind); its interpreter is released by then.
 * Otherwise writes done and leaves with _exit: the run's threads and KVO registrations are
 * never torn down, so nothing can crash or wait at exit. */
static BOOL
serveCase(NSData *data)
{
  NSDictionary *request;
  NSError *error = nil;
  NSString *problem = nil;
  Scenario *scenario;
  NSArray *problems;
  NSInteger protocol, unitMicroseconds, noise;
  uint64_t seedBits;
  Interpreter *run;
  id last;

  if (data == nil || [data length] == 0)
    {
      refuse(@"the request is empty: the driver expects one JSON line on standard input");
    }
  request = [NSJSONSerialization JSONObjectWithData: data options: 0 error: &error];
  if (request == nil)
    {
      refuse([NSString stringWithFormat: @"the request is not valid JSON (%@)",
        error ? [error localizedDescription] : @"unreadable"]);
    }
  if (![request isKindOfClass: [NSDictionary class]])
    {
      refuse(@"the request is not a JSON object");
    }
  protocol = integerField(request, @"protocol");
  if (protocol != 2 && protocol != 3)
    {
      refuse([NSString stringWithFormat: @"protocol %ld requested; this driver speaks 2 and 3", (long)protocol]);
    }
  /* impl is absent in the harness's probe, which asks for the hello of a driver it knows only by
   * its command; when present it must be ours. */
  if ([request objectForKey: @"impl"] != nil && ![[request objectForKey: @"impl"] isEqual: @"gnustep"])
    {
      refuse([NSString stringWithFormat: @"this driver runs gnustep, not '%@'", [request objectForKey: @"impl"]]);
    }
  unitMicroseconds = integerField(request, @"unitMicroseconds");
  if (unitMicroseconds < 0)
    {
      refuse(@"the request's unitMicroseconds is negative");
    }
  /* The schedule seed is a UInt64 (beyond a double's exact range) that a real implementation
   * cannot use to choose its interleavings; only the timing noise draws from it. GNUstep's
   * JSON reader gives it as a double, so the draws are seeded from that double's bits: the
   * same seed, the same draws. */
  if (![[request objectForKey: @"scheduleSeed"] isKindOfClass: [NSNumber class]])
    {
      refuse(@"the request's 'scheduleSeed' is missing or not a number");
    }
  {
    double d = [[request objectForKey: @"scheduleSeed"] doubleValue];

    memcpy(&seedBits, &d, sizeof seedBits);
  }
  /* Timing noise: absent means 0 (Specs/driver-protocol.md, "Timing noise"). */
  noise = [request objectForKey: @"noise"] == nil ? 0 : integerField(request, @"noise");
  if (noise < 0 || noise > 3)
    {
      refuse([NSString stringWithFormat: @"the request's noise is %ld; the levels are 0 to 3", (long)noise]);
    }
  if ([request objectForKey: @"scenario"] == nil)
    {
      refuse(@"the request has no scenario");
    }
  scenario = [Scenario scenarioFromJSON: [request objectForKey: @"scenario"] error: &problem];
  if (scenario == nil)
    {
      refuse(problem);
    }
  problems = [scenario problems];
  if ([problems count] > 0)
    {
      refuse([problems objectAtIndex: 0]);
    }

  /* hello says the request's protocol: 2 for a case served alone, 3 within a session. */
  WriteMessage(JCase(@"hello", JObj(@"protocol", JInt(protocol), @"impl", @"gnustep",
    @"capabilities", capabilities(noise), nil)));
  run = [[Interpreter alloc] initWithScenario: scenario unit: unitMicroseconds / 1e6];
  [TheRecorder() beginCaseWithStallQuiet: [run stallQuiet] noise: noise seed: seedBits];
  last = [run drive];
  if (![TheRecorder() closeWith: last onCallingThread: YES])
    {
      /* The watchdog closed the trace first; it writes done and exits. */
      for (;;)
        {
          sleep(1);
        }
    }
  /* After a hang something is stuck for good: the process ends, whatever the protocol. */
  if (protocol == 3 && [JCaseName(last) isEqual: @"end"] && [run leaveNothingBehind])
    {
      [run release];
      return YES;
    }
  WriteMessage(JCase(@"done", nil));
  _exit(0);
}

int
main(void)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  BOOL inSession = NO;

  RememberParent();     /* the harness, watched by the watchdog (Driver.m) */
  (void)JTrue();        /* the JSON booleans, made before any other thread exists */
  (void)TheRecorder();
  if (!BlockLayoutIsRight())
    {
      refuse(@"this build of the driver lays out its block objects differently from GNUstep's block header, so GNUstep cannot call them");
    }
  StartWatchdog();

  for (;;)
    {
      /* Everything a case autoreleases on this thread, its request and scenario included,
       * goes when the case is over: memory stays flat over a session's cases. */
      NSAutoreleasePool *casePool = [NSAutoreleasePool new];
      NSData *line = readLine();

      if (line == nil && inSession)
        {
          /* The harness closed standard input after a done with next: the session is over. */
          _exit(0);
        }
      if (!serveCase(line))
        {
          break;        /* not reached: serveCase exits unless the process goes on */
        }
      [casePool release];
      /* Written only now, with the case's objects freed: nothing of the case is left to write,
       * and between cases the process writes nothing. */
      casePool = [NSAutoreleasePool new];
      WriteMessage(JCase(@"done", JObj(@"next", JTrue(), nil)));
      [casePool release];
      inSession = YES;
    }
  [pool release];
  return 0;
}
