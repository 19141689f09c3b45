/* JSON.h: building and writing the driver protocol's JSON (Specs/driver-protocol.md).
 *
 * GCC's Objective-C has no collection literals, so values are built with these helpers.
 * Booleans get their own class (JSONBool) so that the writer never has to guess whether an
 * NSNumber meant a number or a truth value; the protocol's decoder (Swift Codable) is strict
 * about the difference.
 */
#import <Foundation/Foundation.h>

/* A JSON true or false. Two shared instances; compare by identity with JTrue(). */
@interface JSONBool : NSObject
{
@public
  BOOL value;
}
@end

id JBool(BOOL b);
id JTrue(void);
id JInt(NSInteger n);
id JDouble(double d);

/* A dictionary from key, value pairs ending with nil: JObj(@"op", JInt(1), nil). */
id JObj(NSString *firstKey, ...);

/* An enumeration value as Swift's synthesized Codable writes it: {"name": payload}, where a
 * payload of nil means a case without fields ({}). */
id JCase(NSString *name, NSDictionary *payload);

/* The case name and payload of an enumeration value, or nil when `value` is not one. */
NSString *JCaseName(id value);
NSDictionary *JCasePayload(id value);

/* One line of compact JSON (keys sorted, no newline at the end). */
NSString *JSONLine(id object);
