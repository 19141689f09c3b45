// What the driver kit hears of Foundation's `Operation.didChangeValue`: see DidChangeHook.c.
#ifndef OPCONFORM_DID_CHANGE_HOOK_H
#define OPCONFORM_DID_CHANGE_HOOK_H

#include <stdint.h>

/// Called with the operation and the two words of the Swift `String` key, borrowed.
typedef void (*opconform_did_change_key_t)(const void *_Nonnull object, uint64_t key0, uint64_t key1);
/// Called with the operation and the `KeyPath<Operation, Value>` object, borrowed.
typedef void (*opconform_did_change_key_path_t)(const void *_Nonnull object, const void *_Nonnull keyPath);

/// Sets the two callbacks (either may be null). Returns 1 where this build stands in for
/// Foundation's methods at all (Linux on x86_64 or arm64), else 0.
int opconform_set_did_change_hooks(opconform_did_change_key_t _Nullable byKey,
                                   opconform_did_change_key_path_t _Nullable byKeyPath);

#endif
