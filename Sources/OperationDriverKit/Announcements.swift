import DidChangeHook
import Foundation
import OperationSpec

/// What the tested subclass announces: every `didChangeValue(forKey:)` (or key-path form) its
/// operations send, recorded as `announced` events of the case that made them.
///
/// Foundation on Linux has no dependent keys, so a class that announces its finish as a change
/// of `state` (correct on Darwin, where `keyPathsForValuesAffectingIsFinished` names it) is
/// never heard by the queue; neither is a class that announces nothing, or a misspelled key,
/// which hang on Darwin too. Only what the class announced tells them apart (issue 42), and a
/// subclass cannot override Foundation's methods on Linux: `DidChangeHook` stands in for them.
/// The kit says `announcements` in its hello only when its self-test heard itself.
enum Announcements {
    /// One watched operation of a case.
    private struct Watched {
        weak var object: Operation?
        weak var context: DriverContext?
        let op: Int
        let probe: SubclassProbe
    }

    /// Guards `watched`; held for a look-up or a change of the table, never around a call out.
    private static let lock = QuietLock()
    /// By the operation's address; looked up only, never iterated into a trace. Sound as
    /// `nonisolated(unsafe)`: read and written only under `lock`.
    nonisolated(unsafe) private static var watched: [UInt: Watched] = [:]

    /// Whether this process hears announcements: the hooks are in and heard the self-test.
    static let active: Bool = {
        guard opconform_set_did_change_hooks(heardKey, heardKeyPath) == 1 else { return false }
        let sample = Operation()
        lock.withLock { selfTestHeard = false }
        sample.didChangeValue(forKey: selfTestKey)
        return lock.withLock { selfTestHeard }
    }()

    private static let selfTestKey = "opconform.announcements.self-test"
    /// Sound as `nonisolated(unsafe)`: read and written only under `lock`.
    nonisolated(unsafe) private static var selfTestHeard = false

    /// Watches `operation`, operation `op` of `context`'s case, declared through `probe`.
    /// Forgets the operations of earlier cases.
    static func watch(_ operation: Operation, op: Int, probe: SubclassProbe, context: DriverContext) {
        guard active else { return }
        let address = UInt(bitPattern: Unmanaged.passUnretained(operation).toOpaque())
        lock.withLock {
            watched = watched.filter { $0.value.context === context && $0.value.object != nil }
            watched[address] = Watched(object: operation, context: context, op: op, probe: probe)
        }
    }

    private static func heard(_ object: UnsafeRawPointer, _ key: String) {
        if key == selfTestKey {
            lock.withLock { selfTestHeard = true }
            return
        }
        let address = UInt(bitPattern: object)
        let found: (DriverContext, Int, SubclassProbe)? = lock.withLock {
            guard let w = watched[address], let live = w.object,
                  UnsafeRawPointer(Unmanaged.passUnretained(live).toOpaque()) == object,
                  let context = w.context else { return nil }
            return (context, w.op, w.probe)
        }
        guard let (context, op, probe) = found else { return }
        context.log(.announced(op: op, key: key, affects: probe.declaredAffecting(key)))
    }

    /// The key's two words are Swift's `String`, borrowed: `load` copies it (a retain of its
    /// storage, released when the copy goes), leaving the caller's as it was.
    private static let heardKey: opconform_did_change_key_t = { object, key0, key1 in
        let key = withUnsafeBytes(of: (key0, key1)) { $0.load(as: String.self) }
        Announcements.heard(object, key)
    }

    /// The key path of `didChangeValue(for:)`, by the name Foundation gives it (the four state
    /// keys), or as Swift describes it.
    private static let heardKeyPath: opconform_did_change_key_path_t = { object, keyPath in
        let path = Unmanaged<AnyKeyPath>.fromOpaque(keyPath).takeUnretainedValue()
        let names: [(AnyKeyPath, String)] = [
            (\Operation.isFinished, "isFinished"), (\Operation.isExecuting, "isExecuting"),
            (\Operation.isReady, "isReady"), (\Operation.isCancelled, "isCancelled")
        ]
        Announcements.heard(object, names.first { $0.0 == path }?.1 ?? String(describing: path))
    }
}
