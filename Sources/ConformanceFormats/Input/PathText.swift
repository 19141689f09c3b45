import Foundation

/// File paths taken apart and put together as text, without Foundation's path functions.
///
/// Why not `NSString`'s path methods: on Swift 6.3.1 for Linux (swift-corelibs-foundation) some
/// of them trap (SIGILL, exit 132) on short paths, so a user's `--out a` killed the harness
/// (issue 33). Measured with a program of one call per
/// process, over every path of up to three characters made of `a`, `/`, `.`, `é`, space and `~`:
/// `deletingLastPathComponent` traps when the last component is one character with nothing
/// before it (`"a"`, `"a/"`, `"a//"`, `"."`, `"./"`, `"é"`, `" "`); it, `lastPathComponent`,
/// `pathExtension` and `deletingPathExtension` trap on a path that ends in a double slash and one
/// non-ASCII character (`"//é"`, `"x//é"`, `"x//日"`). `appendingPathComponent`,
/// `standardizingPath` and `URL`'s path methods did not trap on any of them, but they come from
/// the same library and are not used either: every path made from a user's input goes through
/// here. The report for upstream is in Specs/implementations/foundation-linux-bugs.md.
///
/// Paths are split at `/` code points, not at `Character`s: a `/` followed by a combining mark
/// is one `Character` in Swift but still a separator to the file system.
public enum PathText {
    /// The non-empty components of `path`, in order (`"/a//b/"` gives `a`, `b`).
    public static func components(_ path: String) -> [String] {
        path.unicodeScalars.split(separator: "/").map { String(Substring($0)) }
    }

    /// Whether `path` starts at the root.
    package static func isAbsolute(_ path: String) -> Bool { path.unicodeScalars.first == "/" }

    /// The path without its last component: what Apple documents for `deletingLastPathComponent`
    /// (`"/tmp/lock/"` gives `"/tmp"`, `"/tmp"` gives `"/"`, `"/"` stays `"/"`, and a name with no
    /// folder, `"a"`, gives the empty string). Repeated slashes come out as one.
    public static func parent(_ path: String) -> String {
        let parts = components(path)
        let rest = parts.dropLast().joined(separator: "/")
        return isAbsolute(path) ? "/" + rest : rest
    }

    /// The folder that holds `path`, for opening or creating things in it: `parent(path)`, or
    /// `"."` when the path names something in the current folder.
    public static func folder(of path: String) -> String {
        let parent = parent(path)
        return parent.isEmpty ? "." : parent
    }

    /// The last non-empty component of `path` (`"a/b/"` gives `"b"`); `"/"` for the root, and
    /// the empty string for the empty path.
    public static func lastComponent(_ path: String) -> String {
        components(path).last ?? (isAbsolute(path) ? "/" : "")
    }

    /// `name` inside the folder `base`, with one slash between them (`base` empty: `name`).
    public static func join(_ base: String, _ name: String) -> String {
        if base.isEmpty { return name }
        if name.isEmpty { return base }
        var head = Substring(base).unicodeScalars
        while head.count > 1, head.last == "/" { head.removeLast() }
        var tail = Substring(name).unicodeScalars
        while tail.first == "/" { tail.removeFirst() }
        let folder = String(Substring(head)), rest = String(Substring(tail))
        return folder.unicodeScalars.last == "/" ? folder + rest : folder + "/" + rest
    }

    /// `path` with `.` components dropped, each `..` taking away the component before it, and
    /// repeated slashes made one, without looking at the file system (as `URL`'s
    /// `standardizedFileURL` does for an absolute path). `..` at the root stays at the root; a
    /// relative path keeps its leading `..`s; nothing left is `"."`.
    public static func normalized(_ path: String) -> String {
        var kept: [String] = []
        for part in components(path) {
            if part == "." { continue }
            if part == ".." {
                if let last = kept.last, last != ".." {
                    kept.removeLast()
                } else if !isAbsolute(path) {
                    kept.append("..")
                }
                continue
            }
            kept.append(part)
        }
        let body = kept.joined(separator: "/")
        return isAbsolute(path) ? "/" + body : (body.isEmpty ? "." : body)
    }

    /// `path` as an absolute, normalized path: taken relative to `directory` unless it starts
    /// at the root.
    public static func absolute(_ path: String,
                                in directory: String = FileManager.default.currentDirectoryPath) -> String {
        normalized(isAbsolute(path) ? path : join(directory, path))
    }
}
