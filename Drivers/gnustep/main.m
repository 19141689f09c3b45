/* main.m: the gnustep driver's entry point (Specs/driver-protocol.md).
 *
 * Reads one request line from standard input, checks it, answers hello, runs the scenario
 * (Driver.m) while streaming the trace, writes done and leaves with _exit: the run's threads
 * and KVO registrations are never torn down, so nothing can crash or wait at exit.
 * A request that cannot be run is answered with one error sentence and exit status 2.
 */
#import <Foundation/Foundation.h>
#import "BlockObject.h"
#import "Driver.h"
#import "JSON.h"
#import "Recorder.h"
#include <unistd.h>

/* What this driver really observes (Specs/implementations/gnustep.md says how). */
static NSArray *
capabilities(void)
{
  return [NSArray arrayWithObjects: @"finishing", @"kvo", @"superStart", @"threadIdentity",
    @"threadNames", @"threadPriority", @"thrownErrors", nil];
}

static void
refuse(NSString *sentence)
{
  WriteMessage(JCase(@"error", JObj(@"_0", sentence, nil)));
  _exit(2);
}

/* The first line of standard input (the harness writes one and closes it). */
static NSData *
readRequest(void)
{
  NSMutableData *data = [NSMutableData data];
  char buf[4096];
  ssize_t n;

  while ((n = read(0, buf, sizeof buf)) > 0)
    {
      char *nl = memchr(buf, '\n', (size_t)n);

      [data appendBytes: buf length: nl ? (NSUInteger)(nl - buf) : (NSUInteger)n];
      if (nl)
        break;
    }
  return data;
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

int
main(void)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  NSData *data;
  NSDictionary *request;
  NSError *error = nil;
  NSString *problem = nil;
  Scenario *scenario;
  NSArray *problems;
  NSInteger protocol, unitMicroseconds;
  Interpreter *run;

  RememberParent();     /* the harness, watched by the watchdog (Driver.m) */
  (void)JTrue();        /* the JSON booleans, made before any other thread exists */
  (void)TheRecorder();
  if (!BlockLayoutIsRight())
    {
      refuse(@"this build of the driver lays out its block objects differently from GNUstep's block header, so GNUstep cannot call them");
    }

  data = readRequest();
  if ([data length] == 0)
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
  if (protocol != 2)
    {
      refuse([NSString stringWithFormat: @"protocol %ld requested; this driver speaks 2", (long)protocol]);
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
   * cannot use: it cannot choose its interleavings. Only its presence is checked. */
  if (![[request objectForKey: @"scheduleSeed"] isKindOfClass: [NSNumber class]])
    {
      refuse(@"the request's 'scheduleSeed' is missing or not a number");
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

  WriteMessage(JCase(@"hello", JObj(@"protocol", JInt(2), @"impl", @"gnustep",
    @"capabilities", capabilities(), nil)));
  run = [[Interpreter alloc] initWithScenario: scenario unit: unitMicroseconds / 1e6];
  [run startWatchdog];
  if ([TheRecorder() closeWith: [run drive] onCallingThread: YES])
    {
      WriteMessage(JCase(@"done", nil));
      _exit(0);
    }
  /* The watchdog closed the trace first; it writes done and exits. */
  for (;;)
    {
      sleep(1);
    }
  [pool release];
  return 0;
}
