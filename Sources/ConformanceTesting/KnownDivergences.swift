import Conformance
import Foundation
import OperationSpec

/// The failures a driver run may show that are not the tested queue's fault: they are reported
/// as known issues, and every other failure as an `Issue`.
///
/// A driver made with `OperationDriver` runs Foundation's own `Operation` under the queue being
/// tested, so Foundation's known divergences (its `BlockOperation` runs blocks one after another,
/// `removeDependency` of an unfinished dependency leaves an operation never ready, traps where
/// Cocoa throws...) show under any queue. They are listed per platform in the harness's
/// `Fixtures/expectations/` (`Specs/expectations-format.md`); an entry names a rule, so a rule
/// known to diverge there hides every failure of that rule, the queue's own included. Keep the
/// list as short as the platform allows.
public enum KnownDivergences: Sendable {
    /// Foundation's known divergences on this platform, from the harness's checkout: on Linux
    /// `Fixtures/expectations/foundation-linux.json`. Elsewhere none are known yet: every
    /// failure is an `Issue`.
    case platform
    /// None: every failure is an `Issue` (to see Foundation's divergences as they happen).
    case none
    /// An expectations file (`Specs/expectations-format.md`), e.g. one your project keeps.
    case file(String)
    /// Expectations already loaded or built.
    case these(Expectations)

    /// The expectations, or nil for none. The platform's file and a named file are read here;
    /// their `impl` is not compared with the driver's name, since they describe Foundation's
    /// operations, which run under every queue.
    public func load() throws(InputError) -> Expectations? {
        switch self {
        case .none: return nil
        case .these(let e): return e
        case .file(let path): return try Expectations.load(path)
        case .platform:
            guard let path = Self.platformFile else { return nil }
            return try Expectations.load(path)
        }
    }

    /// The file of this platform's known divergences, in the checkout this library was built
    /// from; nil where none is kept.
    public static var platformFile: String? {
        #if os(Linux)
        return PathText.join(HarnessCheckout.path, "Fixtures/expectations/foundation-linux.json")
        #else
        return nil
        #endif
    }
}

/// Where the harness's package is on this machine: found from this source file's own path
/// (`Sources/ConformanceTesting/` in the checkout), whether the harness is the package being
/// tested, a dependency by path, or a checkout SwiftPM fetched. Replay lines run `opconform`
/// from it, and the platform's known divergences are read from its `Fixtures/`.
public enum HarnessCheckout {
    public static var path: String {
        PathText.parent(PathText.parent(PathText.parent(#filePath)))
    }
}
