import Conformance
import Testing

/// `PathText`, the harness's own path functions (issue 33): Foundation's trap on short paths
/// on Linux, so these must give what Apple documents for `NSString`'s without calling them.
@Suite("Path text")
struct PathTextTests {
    /// Apple's table for `deletingLastPathComponent`, with the one-character and trailing-slash
    /// paths that trap on Linux.
    @Test("parent gives what Apple documents for deletingLastPathComponent", arguments: [
        ("/tmp/scratch.tiff", "/tmp"), ("/tmp/lock/", "/tmp"), ("/tmp/", "/"), ("/tmp", "/"), ("/", "/"),
        ("scratch.tiff", ""), ("a", ""), ("a/", ""), ("a//", ""), (".", ""), ("./", ""), ("é", ""),
        ("x/yy", "x"), ("a/b/c", "a/b"), ("x//é", "x"), ("//", "/"), ("", ""),
    ])
    func parent(path: String, expected: String) {
        #expect(PathText.parent(path) == expected, "\(path)")
    }

    @Test("folder of a bare name is the current folder")
    func folder() {
        #expect(PathText.folder(of: "a") == ".")
        #expect(PathText.folder(of: "a/") == ".")
        #expect(PathText.folder(of: "/a") == "/")
        #expect(PathText.folder(of: "x/y") == "x")
    }

    /// Apple's table for `lastPathComponent`.
    @Test("lastComponent gives what Apple documents for lastPathComponent", arguments: [
        ("/tmp/scratch.tiff", "scratch.tiff"), ("/tmp/scratch", "scratch"), ("/tmp/", "tmp"),
        ("scratch///", "scratch"),
        ("/", "/"), ("x//é", "é"), ("a", "a"), ("", ""),
    ])
    func lastComponent(path: String, expected: String) {
        #expect(PathText.lastComponent(path) == expected, "\(path)")
    }

    @Test("join puts one slash between a folder and a name")
    func join() {
        #expect(PathText.join("a", "b") == "a/b")
        #expect(PathText.join("a/", "b") == "a/b")
        #expect(PathText.join("a//", "/b") == "a/b")
        #expect(PathText.join("/", "b") == "/b")
        #expect(PathText.join("", "b") == "b")
        #expect(PathText.join("a", "") == "a")
    }

    @Test("normalized drops '.', resolves '..' as text, and keeps a relative path's leading '..'")
    func normalized() {
        #expect(PathText.normalized("/a/./b/../c//d/") == "/a/c/d")
        #expect(PathText.normalized("/../a") == "/a")
        #expect(PathText.normalized("../a/../../b") == "../../b")
        #expect(PathText.normalized("a/..") == ".")
        #expect(PathText.absolute("x/../y", in: "/base/") == "/base/y")
        #expect(PathText.absolute("/abs", in: "/base") == "/abs")
    }

    /// A `/` followed by a combining mark is one `Character` in Swift, but still a separator.
    @Test("a slash before a combining mark still separates")
    func combiningMark() {
        let path = "dir/\u{301}name"
        #expect(PathText.components(path) == ["dir", "\u{301}name"])
        #expect(PathText.parent(path) == "dir")
    }
}
