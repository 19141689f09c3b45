import Conformance

/// Text made safe inside an XML or HTML element, or an attribute in double quotes: the four
/// characters that markup gives meaning there escaped. The JUnit report and the HTML report
/// both write with it.
public enum Markup {
    public static func escape(_ s: String) -> String {
        var o = ""
        o.reserveCapacity(s.count)
        for ch in s {
            switch ch {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            // XML 1.0 has no way to write other control characters, not even as references: a
            // driver's stray escape code would make the JUnit file unreadable (issue 43).
            case "\n", "\t", "\r", "\r\n": o.append(ch)
            default:
                if ch.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    o += "\u{FFFD}"
                } else {
                    o.append(ch)
                }
            }
        }
        return o
    }
}
