import Foundation

/// Shrinks begun while the run's other cases still run: each rule's first failing case is
/// shrunk from the moment it is folded, on a real implementation (issue 45).
///
/// A shrink on a real implementation mostly waits for its drivers, and it used to wait for the
/// last case first: the Python example's planted bug was seen in case 2 of 100 and minimised
/// only after all 100 had run. Here the first case of each rule (each death) is handed over as
/// it is folded, and up to `workers` shrink at once beside the cases. After the cases the run
/// takes the findings in its own order (catalog order, then the deaths'), waiting for any not
/// yet done, so the findings and their order are what they were; only the hints a shrink
/// starts from are the minima done when it began. The reference engine never shrinks early:
/// its findings keep their bytes.
///
/// `@unchecked Sendable` is sound: `entries`, `queued`, `busy` and `minima` are read and
/// written only while `condition` is locked; `runner` and `workers` never change.
final class EarlyShrinks: @unchecked Sendable {
    private enum Entry {
        case queued(Runner.ShrinkJob)
        case running
        case done(Finding)
    }
    private let runner: Runner
    private let workers: Int
    private let start: SideBySide.Starter
    /// Guards the state below, and wakes a run waiting for a finding when a shrink ends.
    private let condition = NSCondition()
    private var entries: [Int: Entry] = [:]
    /// Keys handed over and not yet begun, in the order they were folded.
    private var queued: [Int] = []
    private var busy = 0
    private var minima: [Shrinker.Hint]
    private var begun = 0

    /// Whether a run shrinks early: a real implementation that shrinks, run with more than one
    /// job (`--jobs 1` asks for one thing at a time).
    static func apply(to c: RunConfiguration) -> Bool {
        !c.impl.isDeterministic && c.shrink && c.jobs > 1
    }

    init(
        runner: Runner, workers: Int, hints: [Shrinker.Hint],
        starting start: @escaping SideBySide.Starter = SideBySide.detach
    ) {
        self.runner = runner
        self.start = start
        self.workers = max(1, workers)
        self.minima = hints
    }

    /// Hands over the first failing case of the rule or death numbered `key`; a second
    /// hand-over of the same key is ignored.
    func begin(_ key: Int, _ job: Runner.ShrinkJob) {
        condition.lock()
        defer { condition.unlock() }
        guard entries[key] == nil else { return }
        entries[key] = .queued(job)
        queued.append(key)
        guard busy < workers else { return }
        busy += 1
        // A thread the machine refuses leaves the job queued: `finding` then takes it back.
        if !start({ self.work() }) { busy -= 1 }
    }

    /// One worker: shrinks queued jobs in order until none is left.
    private func work() {
        condition.lock()
        while let key = queued.first {
            queued.removeFirst()
            guard case .queued(let job)? = entries[key] else { continue }
            entries[key] = .running
            begun += 1
            let hints = minima
            condition.unlock()
            let finding = runner.finding(for: job.failing, target: job.target, hints: hints)
            condition.lock()
            entries[key] = .done(finding)
            if let hint = Shrinker.Hint(minimumOf: finding), !minima.contains(hint) { minima.append(hint) }
            condition.broadcast()
        }
        busy -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// How many shrinks have begun so far: read as the cases end, the shrinks begun beside them.
    var begunSoFar: Int {
        condition.lock()
        defer { condition.unlock() }
        return begun
    }

    /// The finding of the job handed over as `key`, waiting for it while it is shrunk or queued
    /// behind a running worker; nil when none was handed over, or when no worker is left to
    /// begin it (the job is then taken back, and the caller shrinks it). The waits have no
    /// deadline of their own: only a worker that started waits here, and its shrink ends (the
    /// shrinker's time limit, the drivers' deadlines, a stop).
    func finding(_ key: Int) -> Finding? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch entries[key] {
            case nil:
                return nil
            case .done(let finding)?:
                return finding
            case .running?:
                condition.wait()
            case .queued?:
                guard busy == 0 else {
                    condition.wait()
                    continue
                }
                entries[key] = nil
                queued.removeAll { $0 == key }
                return nil
            }
        }
    }
}
