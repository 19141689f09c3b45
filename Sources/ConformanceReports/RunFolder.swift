import Conformance
import Foundation

/// One folder per run under a findings folder, named by time and seed, and a `latest` link to
/// the newest, so that the findings of separate runs never overwrite each other (issue 32).
///
/// `opconform-findings/20261127-211701-seed1/` (with `-shard2of4` for a shard, and `-2`, `-3`…
/// when two runs start in the same second); `opconform-findings/latest` points at the run
/// started last. Names sort by time. A folder named with `--out` is used as it is: the user chose
/// where the files go.
public enum RunFolder {
    /// The default findings folder of the command line.
    public static let defaultRoot = "opconform-findings"
    public static let latestName = "latest"

    /// The folder's name for a run started at `date` (UTC).
    public static func name(seed: UInt64, shard: Shard = .whole, date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date) + "-seed\(seed)"
            + (shard.count > 1 ? "-shard\(shard.index + 1)of\(shard.count)" : "")
    }

    /// Makes a new folder for a run under `root` and points `root/latest` at it; returns its
    /// path. The folder is made with one `mkdir`, which fails if another run (in this process or
    /// another) took the name first: then the next suffix is tried.
    public static func make(under root: String, seed: UInt64, shard: Shard = .whole, date: Date = Date()) -> String {
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let base = name(seed: seed, shard: shard, date: date)
        var chosen = PathText.join(root, base)
        for n in 1...1000 {
            let candidate = n == 1 ? base : "\(base)-\(n)"
            chosen = PathText.join(root, candidate)
            if mkdir(chosen, 0o755) == 0 { break }
        }
        markLatest(chosen, under: root)
        return chosen
    }

    /// Points `root/latest` at `folder` (a relative link, so the findings folder can be moved).
    /// Replaced by rename, so a reader never finds it missing.
    public static func markLatest(_ folder: String, under root: String) {
        let link = PathText.join(root, latestName)
        let temporary = link + ".\(getpid()).tmp"
        unlink(temporary)
        guard symlink(PathText.lastComponent(folder), temporary) == 0 else { return }
        if rename(temporary, link) != 0 { unlink(temporary) }
    }

    /// After a run whose folder was removed again (it found nothing): `latest` points back at
    /// the newest run folder left, or goes.
    public static func forget(_ folder: String, under root: String) {
        let link = PathText.join(root, latestName)
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
              target == PathText.lastComponent(folder) else { return }
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .filter { $0 != latestName && !$0.hasSuffix(".tmp") && $0.first?.isNumber == true }.sorted()
        if let newest = left.last { markLatest(PathText.join(root, newest), under: root) } else { unlink(link) }
    }
}
