import Conformance

/// How a Swift reproducer writes text it did not choose: a comment line or a string literal.
/// Everything a finding file or the command line supplies (the message, the impl, the driver's
/// path, the finding's path, queue names, the claims made from them) reaches a reproducer only
/// through these functions, so none of it can end a comment, close a literal, interpolate, or
/// add a line of code. They keep printable ASCII and escape everything else (an allow-list), so
/// a character nobody thought of is escaped too; text that is plain printable ASCII is written
/// as it was, and the committed reproducers keep their bytes.
enum SwiftSource {
    /// `text` as one `//` comment line (`///` when `doc`), `//` alone when it is empty.
    /// Swift ends a line comment only at a line feed or carriage return, both escaped (with
    /// every other character outside printable ASCII, U+2028 and NUL among them).
    static func comment(_ text: String, doc: Bool = false) -> String {
        let marker = doc ? "///" : "//"
        return text.isEmpty ? marker : marker + " " + CommentText.escaped(text)
    }

    /// `text` as a Swift string literal that evaluates to exactly `text`: `\` and `"` escaped,
    /// so `\(` cannot interpolate and `"` or `#"` cannot end it; line feed, carriage return, tab
    /// and NUL as `\n`, `\r`, `\t`, `\0`; any other scalar outside printable ASCII as `\u{…}`.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += CommentText.visible(scalar)
            }
        }
        return out + "\""
    }
}

/// How an Objective-C reproducer writes text it did not choose: a comment or an `NSString`.
/// The same text as for `SwiftSource` reaches it only through these functions. C has more ways
/// out of a comment than Swift: `*/`, and a line splice (a backslash, or the trigraph `??/`,
/// at the end of a line joins the next line to the comment, so `*\`, a newline and `/` make
/// `*/`). The comment text therefore holds no line break, no `*/` or `/*`, no `??`, and no
/// backslash that is not followed by a printable character; the string holds no raw
/// backslash, quote, `??` or character outside printable ASCII. No literal written here is
/// ever a format string (the program passes it to `%@`), so `%` needs no escape.
enum ObjCSource {
    /// `text` as a one-line block comment: `/* text */`.
    static func comment(_ text: String) -> String {
        "/* " + CommentText.escaped(text) + " */"
    }

    /// `text` as a line inside a block comment that the caller opens and closes: ` * text`,
    /// or ` *` when it is empty.
    static func commentLine(_ text: String) -> String {
        text.isEmpty ? " *" : " * " + CommentText.escaped(text)
    }

    /// `text` as an expression of an `NSString` equal to it. Printable ASCII is a literal
    /// `@"…"`; anything else is its UTF-8 bytes in a C string with octal escapes and an
    /// explicit length (`initWithBytes:length:encoding:`), exact for NUL and for characters
    /// outside ASCII whatever the compiler's or GNUstep's idea of a constant string's encoding.
    static func string(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let body = cString(bytes)
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) { return "@\"" + body + "\"" }
        return "[[[NSString alloc] initWithBytes: \"" + body + "\" length: \(bytes.count)"
            + " encoding: NSUTF8StringEncoding] autorelease]"
    }

    /// The inside of a C string literal holding `bytes`: `\` and `"` escaped, a `?` after a `?`
    /// written `\?` (no trigraph), anything outside printable ASCII as a three-digit octal
    /// escape (never more digits, so a digit after it is not read into it).
    private static func cString(_ bytes: [UInt8]) -> String {
        var out = ""
        for b in bytes {
            switch b {
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "?") where out.hasSuffix("?"): out += "\\?"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let octal = String(b, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out
    }
}

/// The text of a comment in either language, made one line that cannot end the comment.
/// Printable ASCII is kept; any other scalar is written `\u{…}` (visible, and no line break).
/// Of the printable ones, a `/` after a `*`, a `*` after a `/` and a `?` after a `?` are escaped
/// the same way, so the text never holds `*/`, `/*` or a trigraph; a backslash is kept only
/// when a printable character that is not a space follows it, so it never ends a line.
enum CommentText {
    static func escaped(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = ""
        for (i, scalar) in scalars.enumerated() {
            let next = i + 1 < scalars.count ? scalars[i + 1] : nil
            let keep: Bool
            switch (out.unicodeScalars.last, scalar) {
            case ("*", "/"), ("/", "*"), ("?", "?"): keep = false
            case (_, "\\"): keep = next.map { ("!"..."~").contains($0) } ?? false
            case (_, " "..."~"): keep = true
            default: keep = false
            }
            if keep { out.unicodeScalars.append(scalar) } else { out += visible(scalar) }
        }
        return out
    }

    /// A scalar as `\u{…}`, its value in hexadecimal.
    static func visible(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
