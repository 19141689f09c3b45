// Stands in for Foundation's `Operation.didChangeValue(forKey:)` and `didChangeValue(for:)` on
// Linux, so that the driver kit hears every key a tested subclass announces, then calls
// Foundation's own method.
//
// swift-corelibs-foundation declares both methods `public` in an extension of `Operation`, not
// `open`: a subclass cannot override them, and a class's calls to them bind by name to the
// symbols below. A driver executable that links the kit defines them too, weakly: the static
// linker binds the executable's own calls to this definition (a definition in the executable
// comes before one in the shared libFoundation.so), and `dlsym(RTLD_NEXT, ...)` finds
// Foundation's, which is then called with the same arguments. Where Foundation is linked
// statically (`--static-swift-stdlib`), its strong definition wins, nothing here runs, and the
// kit's self-test says announcements cannot be observed (the harness then never excuses on
// them). The arguments follow Swift's calling convention (`swiftcall`): the key's two words, or
// the key path and its value type's metadata, then `self` in the context register.
#define _GNU_SOURCE   // RTLD_NEXT; before any header
#include "DidChangeHook.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*by_key_t)(uint64_t, uint64_t, void *__attribute__((swift_context))) __attribute__((swiftcall));
typedef void (*by_key_path_t)(const void *, const void *, void *__attribute__((swift_context))) __attribute__((swiftcall));

static _Atomic(opconform_did_change_key_t) heard_key = NULL;
static _Atomic(opconform_did_change_key_path_t) heard_key_path = NULL;

int opconform_set_did_change_hooks(opconform_did_change_key_t byKey, opconform_did_change_key_path_t byKeyPath) {
    atomic_store(&heard_key, byKey);
    atomic_store(&heard_key_path, byKeyPath);
    return 1;
}

// Foundation's method, found once (a race finds the same address twice: harmless).
static void *foundations(const char *name, _Atomic(void *) *slot) {
    void *found = atomic_load(slot);
    if (!found) {
        found = dlsym(RTLD_NEXT, name);
        atomic_store(slot, found);
    }
    return found;
}

#define BY_KEY "$s10Foundation9OperationC14didChangeValue6forKeyySS_tF"
#define BY_KEY_PATH "$s10Foundation9OperationC14didChangeValue3forys7KeyPathCyACxG_tlF"

__attribute__((weak, swiftcall)) void $s10Foundation9OperationC14didChangeValue6forKeyySS_tF(
        uint64_t key0, uint64_t key1, void *__attribute__((swift_context)) self) {
    static _Atomic(void *) slot = NULL;
    opconform_did_change_key_t heard = atomic_load(&heard_key);
    if (heard) heard(self, key0, key1);
    by_key_t original = (by_key_t)foundations(BY_KEY, &slot);
    if (original) original(key0, key1, self);
}

__attribute__((weak, swiftcall)) void $s10Foundation9OperationC14didChangeValue3forys7KeyPathCyACxG_tlF(
        const void *keyPath, const void *valueType, void *__attribute__((swift_context)) self) {
    static _Atomic(void *) slot = NULL;
    opconform_did_change_key_path_t heard = atomic_load(&heard_key_path);
    if (heard) heard(self, keyPath);
    by_key_path_t original = (by_key_path_t)foundations(BY_KEY_PATH, &slot);
    if (original) original(keyPath, valueType, self);
}
#else
int opconform_set_did_change_hooks(opconform_did_change_key_t byKey, opconform_did_change_key_path_t byKeyPath) {
    (void)byKey;
    (void)byKeyPath;
    return 0;
}
#endif
