import Foundation
import OperationDriverKit
import OperationSpec

/// The one place JSON is written and read. Keys are sorted and output is pretty-printed, so the
/// same value is the same bytes in every process: scenarios and traces can be diffed and hashed.
/// Scenario and finding FILES have formats of their own, for people (`ScenarioFormat`,
/// `FindingFile`); `encode` of a scenario is its synthesized form, what drivers receive and
/// what `ScenarioHash` hashes.
public enum JSONCodec {
    public static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding our own Codable types cannot fail: no floats are NaN (validated), no custom throws.
        do { return try encoder.encode(value) } catch { preconditionFailure("encoding \(T.self) failed: \(error)") }
    }

    /// One line of JSON (sorted keys, no newlines inside): the unit of the driver protocol.
    public static func line<T: Encodable>(_ value: T) -> String { ProtocolLines.line(value) }

    public static func encodeString<T: Encodable>(_ value: T) -> String {
        String(decoding: encode(value), as: UTF8.self) + "\n"
    }

    /// Decodes a document read from `source` (a file name, or words such as "the request"). Every
    /// failure is one sentence naming the source, the field, what it holds, its line and column,
    /// and what is allowed; a type with rules of its own beyond its shape (`CheckedInput`) is
    /// checked too.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String) throws(InputError) -> T {
        let value: T
        // A key given twice first: Foundation's decoder would read one of them and say nothing.
        if let twice = JSONDiagnosis(data).duplicateKey(source: source) { throw InputError(twice) }
        do {
            value = try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw InputError.decoding(error, source: source, data: data, retry: { again in
                do { _ = try JSONDecoder().decode(T.self, from: again); return nil } catch { return error }
            })
        }
        if let checked = value as? any CheckedInput, let problem = checked.inputProblem() {
            throw InputError.field(problem, source: source, data: data)
        }
        // After the checks of its values: a file of a format this build does not read is told
        // so, not that its new keys are unknown.
        if let keyed = value as? any StrictlyKeyed, let unknown = keyed.unknownKey(in: data, source: source) {
            throw unknown
        }
        return value
    }

    /// A finding file, of any format this build reads (`FindingFile`: the scenario inside a
    /// format-3 finding is format 2, which Foundation's decoder cannot read). More specific than
    /// the generic `decode`, so `decode(Finding.self, ...)` comes here.
    public static func decode(_ type: Finding.Type, from data: Data, source: String) throws(InputError) -> Finding {
        try FindingFile.decode(data, source: source)
    }

    /// The largest file the harness reads as input. Scenarios, findings and expectations are
    /// kilobytes; a file this large is not one of them, and reading it would only cost memory.
    package static let inputSizeLimit = 64 << 20

    /// The bytes of an input file, or one sentence that says why not: there is no such file, it
    /// is a folder, there is no permission to read it, or it is too big to be an input.
    public static func readFile(at path: String) throws(InputError) -> Data {
        let shown = JSONDiagnosis.oneLine(path)
        guard !path.isEmpty else { throw InputError("an input file's name is empty") }
        let megabytes = inputSizeLimit >> 20
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                throw InputError(
                    "\(shown) cannot be read: it is a symbolic link to "
                        + "\(JSONDiagnosis.oneLine(target)), which does not exist"
                )
            }
            throw InputError("\(shown) cannot be read: \(reason(code))")
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw InputError("\(shown) cannot be read: it is a folder, not a file") }
        if info.st_size > inputSizeLimit {
            throw InputError(
                "\(shown) cannot be read: it is \((Int(info.st_size) + (1 << 20) - 1) >> 20) MB, more than the "
                    + "\(megabytes) MB an input file may be"
            )
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw InputError("\(shown) cannot be read: \(reason(errno))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var data = Data()
        do {
            // A device or a pipe has no size to check beforehand: the limit holds while reading.
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                if data.count > inputSizeLimit { break }
            }
        } catch {
            throw InputError("\(shown) cannot be read: \(JSONDiagnosis.oneLine(error.localizedDescription))")
        }
        if data.count > inputSizeLimit {
            throw InputError("\(shown) cannot be read: it holds more than the \(megabytes) MB an input file may be")
        }
        return data
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "there is no such file"
        case EACCES, EPERM: return "no permission to read it"
        case ENOTDIR: return "a part of its path is not a folder"
        case EISDIR: return "it is a folder, not a file"
        case ELOOP: return "its symbolic links go round in a loop"
        case ENAMETOOLONG: return "its name is too long"
        default: return JSONDiagnosis.oneLine(String(cString: strerror(code)))
        }
    }

    /// Reads a scenario file, format 1 or 2 (`ScenarioFormat`), and checks it can be run; every
    /// problem is one sentence.
    package static func loadScenario(at path: String) throws(InputError) -> Scenario {
        let data = try readFile(at: path)
        do {
            return try ScenarioFormat.decode(data, source: path)
        } catch {
            // A finding that `replay` took for a scenario: say what is wrong with it as a
            // finding, not that a scenario field is missing.
            if looksLikeFinding(data) { _ = try FindingFile.decode(data, source: path) }
            throw error
        }
    }

    /// Whether `data` is a JSON object with the fields only a finding has (`rule`, `identity`).
    package static func looksLikeFinding(_ data: Data) -> Bool {
        guard case .object(let members)? = JSONDiagnosis(data).root?.value else { return false }
        let keys = Set(members.map(\.key))
        return keys.contains("rule") && keys.contains("identity")
    }

    /// Whether `data` is a JSON object with the fields an expectations file has (`expected`,
    /// `impl`), so a command that takes scenarios and findings can say what it was given instead.
    package static func looksLikeExpectations(_ data: Data) -> Bool {
        guard case .object(let members)? = JSONDiagnosis(data).root?.value else { return false }
        let keys = Set(members.map(\.key))
        return keys.contains("expected") && keys.contains("impl") && !keys.contains("identity")
    }
}

/// A type whose documents have rules beyond their shape (a known rule id, a format this build
/// reads): `JSONCodec.decode` refuses a document that breaks one, naming the field.
protocol CheckedInput {
    func inputProblem() -> InputError.FieldProblem?
}
