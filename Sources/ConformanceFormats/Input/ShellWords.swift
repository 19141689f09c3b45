/// Words of a command line a user pastes into a POSIX shell: a word with nothing the shell
/// treats specially is left as it is, any other is put in single quotes.
public enum ShellWords {
    public static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || "_./:=+,@%-".utf8.contains(b)
        }
        if plain { return word }
        return "'" + word.replacingAll("'", with: "'\\''") + "'"
    }

    public static func join(_ words: [String]) -> String { words.map(quote).joined(separator: " ") }
}

extension String {
    /// `replacingOccurrences` without Foundation (this file is used by reports that stay plain).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
