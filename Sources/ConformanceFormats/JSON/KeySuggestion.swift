/// "Did you mean ...?": the known name nearest to one that is not known. A misspelt key
/// ("queuePriorty", "afer") used to be ignored and the scenario quietly meant something else;
/// now it is refused, and the sentence that refuses it should name what was meant.
enum KeySuggestion {
    /// The known name closest to `name` by edit distance (letter case aside), when it is close
    /// enough to be what was meant: at most two edits, or a third of the known name's letters
    /// for a long one. Ties go to the earlier of `known`, so the answer never depends on order
    /// of discovery; callers pass sorted lists.
    static func nearest(to name: String, among known: [String]) -> String? {
        let a = Array(name.lowercased())
        // A name of a hundred letters is no misspelling of a key; and the table grows with it.
        guard !a.isEmpty && a.count <= 100 else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in known where !candidate.isEmpty {
            let d = distance(a, Array(candidate.lowercased()))
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, best.name.count / 3), best.distance < max(a.count, 1) else {
            return nil
        }
        return best.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions, one each.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }

    /// "; did you mean "queuePriority"?" or nothing.
    static func clause(for name: String, among known: [String]) -> String {
        guard let nearest = nearest(to: name, among: known) else { return "" }
        return "; did you mean \(JSONDiagnosis.quoted(nearest))?"
    }
}
