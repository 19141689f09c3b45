import Conformance
import Foundation

/// The run's log as it happens: one JSON line per case (`CaseRecord`), written the moment the
/// case is decided and not buffered, so a run that is killed keeps every case it finished, each
/// with the line that replays it. The first line describes the run (`Specs/run-output.md`).
public final class CaseLog {
    private let handle: FileHandle

    public init(path: String, header: RunHeader) throws(InputError) {
        do { handle = try OutputFile.handle(path) } catch { throw InputError("the case log: " + error.message) }
        write(JSONCodec.line(["run": header]))
    }

    public func append(_ record: CaseRecord) { write(JSONCodec.line(record)) }

    private func write(_ line: String) { handle.write(Data(line.utf8)) }

    /// Closes the file (before it is removed); nothing is written after.
    public func close() { try? handle.close() }

    deinit { try? handle.close() }
}

/// The case log's first line: what run the records belong to.
public struct RunHeader: Codable, Sendable {
    /// 2: every seed is a string (`SeedText`), here and in the records; 1 (no `format`): numbers.
    public var format = 2
    public var impl: String
    public var profile: String
    @SeedText public var seed: UInt64
    public var count: Int
    public var shard: String
    public var generatorVersion: Int
    public var size: Int
    public var misuseRate: Int
    public var flawRate: Int

    public init(_ c: RunConfiguration) {
        impl = c.impl.name
        profile = c.profile.rawValue
        seed = c.seed
        count = c.count
        shard = "\(c.shard.index + 1)/\(c.shard.count)"
        generatorVersion = ScenarioGenerator.version
        size = c.generator.size
        misuseRate = c.generator.misuseRate
        flawRate = c.generator.flawRate
    }
}
