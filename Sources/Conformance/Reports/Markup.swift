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
            default: o.append(ch)
            }
        }
        return o
    }
}
