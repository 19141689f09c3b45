import Conformance
import Foundation

/// `--expectations FILE | none` of run, matrix and sweep, and the platform's known divergences
/// applied by themselves (issue 29): what a run may excuse (`RunConfiguration.known`).
///
/// A driver that says in its hello that it builds on a platform (`OperationDriver` does: a
/// queue of the user's own over Foundation's operations, or the user's subclass on Foundation's
/// queue) shows that platform's divergences under any code, so its run applies the platform's
/// shipped file (`Fixtures/expectations/PLATFORM.json`) unless told otherwise: correct code
/// exits 0, with the platform's divergences listed apart. Each entry excuses only the
/// violations its cause explains (`Attribution`).
enum KnownDivergenceOption {
    /// The known divergences for `impl`, and where they came from; nil for none.
    static func resolve(_ value: String?, for impl: any Implementation) throws(InputError) -> (Expectations, String)? {
        switch value {
        case "none":
            return nil
        case let path?:
            let expectations = try Expectations.load(path)
            guard expectations.impl == impl.name || platformImpl(of: impl) == expectations.impl else {
                let platform = impl.setting.platform.map { " or \($0), the platform it builds on" } ?? ""
                throw InputError("\(path) holds expectations for \(expectations.impl), not \(impl.name)\(platform)")
            }
            return (expectations, path)
        case nil:
            guard let platform = impl.setting.platform, !impl.setting.owns.isEmpty,
                  let path = platformFile(platform) else { return nil }
            return (try Expectations.load(path), "\(platform) (\(path))")
        }
    }

    /// The shipped known-divergences file of `platform` (`foundation-linux`): near the current
    /// folder or the executable, else in the checkout this program was built from (an
    /// installed copy run from a user's project: the README's install); nil when none is found.
    static func platformFile(_ platform: String) -> String? {
        let relative = "Fixtures/expectations/\(platform).json"
        let built = PathText.join(PathText.folder(of: PathText.folder(of: PathText.folder(of: #filePath))), relative)
        return OwnExecutable.packageFile(relative) ?? (FileManager.default.fileExists(atPath: built) ? built : nil)
    }

    /// The implementation name a platform's shipped file is written for (`foundation-linux`:
    /// `foundation`), when `impl` builds on a platform.
    static func platformImpl(of impl: any Implementation) -> String? {
        guard let platform = impl.setting.platform else { return nil }
        return platform.split(separator: "-").first.map(String.init)
    }
}
