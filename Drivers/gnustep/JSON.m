/* JSON.m: the JSON writer and value helpers. The writer is our own rather than
 * NSJSONSerialization so that booleans, integers and doubles come out exactly as the Swift
 * decoder expects them (GNUstep's parser, for example, reads every number as a double).
 */
#import "JSON.h"
#include <math.h>
#include <stdlib.h>

@implementation JSONBool
@end

static JSONBool *trueValue = nil;
static JSONBool *falseValue = nil;

id
JBool(BOOL b)
{
  if (trueValue == nil)
    {
      /* Created on the driving thread before any other thread exists (main.m calls JTrue
       * first), so no lock is needed. */
      trueValue = [JSONBool new];
      trueValue->value = YES;
      falseValue = [JSONBool new];
      falseValue->value = NO;
    }
  return b ? trueValue : falseValue;
}

id
JTrue(void)
{
  return JBool(YES);
}

id
JInt(NSInteger n)
{
  return [NSNumber numberWithLongLong: (long long)n];
}

id
JDouble(double d)
{
  return [NSNumber numberWithDouble: d];
}

id
JObj(NSString *firstKey, ...)
{
  NSMutableDictionary *d = [NSMutableDictionary dictionary];
  va_list ap;
  NSString *key = firstKey;

  va_start(ap, firstKey);
  while (key != nil)
    {
      id value = va_arg(ap, id);

      if (value != nil)
        {
          [d setObject: value forKey: key];
        }
      key = va_arg(ap, NSString *);
    }
  va_end(ap);
  return d;
}

id
JCase(NSString *name, NSDictionary *payload)
{
  return [NSDictionary dictionaryWithObject: (payload ? payload : [NSDictionary dictionary])
                                     forKey: name];
}

NSString *
JCaseName(id value)
{
  if ([value isKindOfClass: [NSDictionary class]] && [value count] == 1)
    {
      NSString *key = [[value allKeys] objectAtIndex: 0];

      if ([[value objectForKey: key] isKindOfClass: [NSDictionary class]])
        {
          return key;
        }
    }
  return nil;
}

NSDictionary *
JCasePayload(id value)
{
  NSString *name = JCaseName(value);

  return name ? [value objectForKey: name] : nil;
}

static void
appendString(NSMutableData *out, NSString *s)
{
  const unsigned char *p = (const unsigned char *)[s UTF8String];

  [out appendBytes: "\"" length: 1];
  for (; *p != 0; p++)
    {
      char buf[8];

      switch (*p)
        {
          case '"': [out appendBytes: "\\\"" length: 2]; break;
          case '\\': [out appendBytes: "\\\\" length: 2]; break;
          case '\n': [out appendBytes: "\\n" length: 2]; break;
          case '\r': [out appendBytes: "\\r" length: 2]; break;
          case '\t': [out appendBytes: "\\t" length: 2]; break;
          default:
            if (*p < 0x20)
              {
                snprintf(buf, sizeof buf, "\\u%04x", *p);
                [out appendBytes: buf length: strlen(buf)];
              }
            else
              {
                [out appendBytes: p length: 1];
              }
        }
    }
  [out appendBytes: "\"" length: 1];
}

static void
appendNumber(NSMutableData *out, NSNumber *n)
{
  char buf[40];
  const char *type = [n objCType];

  if (type[0] == 'd' || type[0] == 'f')
    {
      double d = [n doubleValue];

      if (!isfinite(d))
        {
          d = 0;        /* JSON has no infinities; never expected here */
        }
      if (d == floor(d) && fabs(d) < 1e15)
        {
          snprintf(buf, sizeof buf, "%.1f", d);
        }
      else
        {
          /* The shortest form that reads back as the same double. */
          snprintf(buf, sizeof buf, "%.15g", d);
          if (strtod(buf, NULL) != d)
            {
              snprintf(buf, sizeof buf, "%.17g", d);
            }
        }
    }
  else
    {
      snprintf(buf, sizeof buf, "%lld", [n longLongValue]);
    }
  [out appendBytes: buf length: strlen(buf)];
}

static void
appendValue(NSMutableData *out, id v)
{
  if ([v isKindOfClass: [JSONBool class]])
    {
      if (((JSONBool *)v)->value)
        [out appendBytes: "true" length: 4];
      else
        [out appendBytes: "false" length: 5];
    }
  else if ([v isKindOfClass: [NSString class]])
    {
      appendString(out, v);
    }
  else if ([v isKindOfClass: [NSNumber class]])
    {
      appendNumber(out, v);
    }
  else if ([v isKindOfClass: [NSArray class]])
    {
      NSUInteger i, n = [v count];

      [out appendBytes: "[" length: 1];
      for (i = 0; i < n; i++)
        {
          if (i > 0)
            [out appendBytes: "," length: 1];
          appendValue(out, [v objectAtIndex: i]);
        }
      [out appendBytes: "]" length: 1];
    }
  else if ([v isKindOfClass: [NSDictionary class]])
    {
      NSArray *keys = [[v allKeys] sortedArrayUsingSelector: @selector(compare:)];
      NSUInteger i, n = [keys count];

      [out appendBytes: "{" length: 1];
      for (i = 0; i < n; i++)
        {
          NSString *k = [keys objectAtIndex: i];

          if (i > 0)
            [out appendBytes: "," length: 1];
          appendString(out, k);
          [out appendBytes: ":" length: 1];
          appendValue(out, [v objectForKey: k]);
        }
      [out appendBytes: "}" length: 1];
    }
  else
    {
      [out appendBytes: "null" length: 4];
    }
}

NSString *
JSONLine(id object)
{
  NSMutableData *out = [NSMutableData dataWithCapacity: 128];

  appendValue(out, object);
  return AUTORELEASE([[NSString alloc] initWithData: out encoding: NSUTF8StringEncoding]);
}
