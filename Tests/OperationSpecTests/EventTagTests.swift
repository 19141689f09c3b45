@testable import OperationSpec
import Testing

/// The facts store one code per event; rules ask "is it of kind a or b" through a bit mask.
/// These pin the mask to the meaning of a tag, and the code space to the mask's 128 bits (two words).
@Suite("Event tags")
struct EventTagTests {
    /// Every tag a rule can name: each event kind, each call kind's call and return.
    static let tags: [EventTag] = EventKind.Tag.allCases.map { EventTag.kind($0) }
        + Call.Tag.allCases.map { EventTag.call($0) } + Call.Tag.allCases.map { EventTag.returned($0) }

    @Test("The counts fold from the last cases and agree with allCases; every code fits the mask")
    func counts() {
        #expect(EventTag.kinds == EventKind.Tag.allCases.count)
        #expect(EventTag.calls == Call.Tag.allCases.count)
        #expect(EventTag.count == Self.tags.count)
        #expect(EventTag.count <= 128)
        #expect(EventTag.count > 64, "the mask's second word is exercised by codes past 63")
    }

    @Test("A mask holds a code exactly when the code is the tag's, or a call kind's under a call or return tag")
    func maskMeaning() {
        func means(_ code: Int, _ tag: EventTag) -> Bool { code == tag.code || EventTag.kindCode(of: code) == tag.code }
        var wrong: [String] = []
        for a in Self.tags {
            for b in [nil] + Self.tags {
                let mask = EventTagMask(a, b)
                for code in 0..<EventTag.count where mask.contains(UInt8(code)) != (means(code, a) || (b.map { means(code, $0) } ?? false)) {
                    wrong.append("code \(code) with tags \(a.code), \(b.map { String($0.code) } ?? "none")")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        // The mask is not vacuous: a call tag holds every call kind, a plain kind only itself.
        #expect(EventTagMask(.kind(.call)).contains(UInt8(EventTag.call(.start).code)))
        #expect(!EventTagMask(.kind(.mainBegan)).contains(UInt8(EventTag.kind(.mainEnded).code)))
    }
}
