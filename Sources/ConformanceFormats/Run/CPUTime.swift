import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time (user plus system): this process's own, every thread of it (`getrusage`'s
/// `RUSAGE_SELF`: "harness"), and its child processes' ("drivers"): those that ended and were
/// reaped (`RUSAGE_CHILDREN`) plus, on Linux, those still running (their `utime` and `stime` in
/// `/proc/PID/stat`, found through `/proc/self/task/*/children`). A driver of protocol 3 serves
/// case after case and waits between them in a pool, so at the end of a run up to `jobs` drivers
/// are alive and `RUSAGE_CHILDREN` alone would not have counted them yet. With both, the
/// difference between two readings holds every driver's CPU between them, whether it was
/// reaped in between, is still alive, or was alive at the first reading and reaped since. A run
/// keeps that difference over its case phase (`RunResult.cpu`).
///
/// What the figures cannot say:
/// - both counters are the process's, not the run's: a second run in the same process at the
///   same time (tests run in parallel) is counted in both runs' figures;
/// - a running child's time is read in clock ticks (10 ms on Linux), a reaped one's to the
///   microsecond;
/// - grandchildren count only when their parent waited for them; elsewhere than Linux, a child
///   counts only once it is reaped.
///
/// Held as whole microseconds, so that differences are exact and print without rounding noise.
public struct CPUTime: Sendable, Equatable, Codable {
    /// This process's CPU time, user plus system, in microseconds.
    public var harnessMicroseconds: Int64
    /// Child processes' CPU time, user plus system, in microseconds: the reaped ones' and, on
    /// Linux, the running ones'.
    public var driversMicroseconds: Int64

    public init(harnessMicroseconds: Int64, driversMicroseconds: Int64) {
        self.harnessMicroseconds = harnessMicroseconds
        self.driversMicroseconds = driversMicroseconds
    }

    public var harnessSeconds: Double { Double(harnessMicroseconds) / 1e6 }
    public var driversSeconds: Double { Double(driversMicroseconds) / 1e6 }
    package var totalSeconds: Double { Double(harnessMicroseconds + driversMicroseconds) / 1e6 }

    /// The counters now.
    public static func now() -> CPUTime {
        CPUTime(
            harnessMicroseconds: microseconds(selfWho),
            driversMicroseconds: microseconds(childrenWho) + runningChildrenMicroseconds())
    }

    /// Two spans together.
    public static func + (a: CPUTime, b: CPUTime) -> CPUTime {
        CPUTime(
            harnessMicroseconds: a.harnessMicroseconds + b.harnessMicroseconds,
            driversMicroseconds: a.driversMicroseconds + b.driversMicroseconds)
    }

    /// What was used between `earlier` and `self`.
    public static func - (later: CPUTime, earlier: CPUTime) -> CPUTime {
        CPUTime(harnessMicroseconds: later.harnessMicroseconds - earlier.harnessMicroseconds,
                driversMicroseconds: later.driversMicroseconds - earlier.driversMicroseconds)
    }

    /// The CPU used while `body` ran, with what it returned.
    public static func measure<T>(_ body: () throws -> T) rethrows -> (T, CPUTime) {
        let before = now()
        let value = try body()
        return (value, now() - before)
    }

    /// Milliseconds a case, each part rounded: what the console and the bench print.
    public func millisecondsPerCase(_ cases: Int) -> (total: Int, harness: Int, drivers: Int) {
        guard cases > 0 else { return (0, 0, 0) }
        let n = Double(cases)
        let harness = Double(harnessMicroseconds) / 1000 / n, drivers = Double(driversMicroseconds) / 1000 / n
        return (Int((harness + drivers).rounded()), Int(harness.rounded()), Int(drivers.rounded()))
    }

    #if canImport(Glibc)
    private static let selfWho = RUSAGE_SELF.rawValue, childrenWho = RUSAGE_CHILDREN.rawValue
    #else
    private static let selfWho = RUSAGE_SELF, childrenWho = RUSAGE_CHILDREN
    #endif

    private static func microseconds(_ who: Int32) -> Int64 {
        var usage = rusage()
        // Fails only for a bad `who` or a bad pointer, neither of which can happen here.
        _ = getrusage(who, &usage)
        func micro(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_usec) }
        return micro(usage.ru_utime) + micro(usage.ru_stime)
    }

    /// The CPU time so far of this process's children that are not reaped yet (running, or
    /// ended and not yet waited for). Each thread lists the children it started in
    /// `/proc/self/task/TID/children`; a child's `/proc/PID/stat` has, after the `)` that ends
    /// its name, its `utime` and `stime` (fields 14 and 15, clock ticks, its threads together)
    /// and its own reaped children's `cutime` and `cstime` (16 and 17), all of which
    /// `RUSAGE_CHILDREN` takes over when the child is reaped: a reaping moves time from this
    /// sum to that counter, it neither adds nor loses any. A child that ends while this reads
    /// is left out of this reading; 0 where there is no /proc.
    static func runningChildrenMicroseconds() -> Int64 {
        #if os(Linux)
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        let tick = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard tick > 0 else { return 0 }
        var ticks: Int64 = 0
        for task in tasks {
            guard let children = try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8) else {
                continue
            }
            for pid in children.split(separator: " ") {
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                // After the name: state (field 3), ..., utime (14), stime (15), cutime (16), cstime (17).
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 14 else { continue }
                ticks += fields[11...14].reduce(0) { $0 + (Int64($1) ?? 0) }
            }
        }
        return ticks * 1_000_000 / tick
        #else
        return 0
        #endif
    }
}
