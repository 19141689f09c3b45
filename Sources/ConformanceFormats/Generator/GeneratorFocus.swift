/// A part of the API a guided case leans towards (issue 18 item 4; Specs/generator.md, "Guided
/// generation"): the chances of the generator's draws for that part are raised for the case,
/// so rules that are rarely reached are reached more often. The draws themselves are the same
/// ones; only the thresholds they are compared with change. A case's focus is part of its
/// options, so its seed and options still rebuild it anywhere (`replay --seed S --focus F`).
public enum GeneratorFocus: String, Sendable, Codable, CaseIterable {
    /// `cancelAllOperations` on a queue once its first operation started (CANCEL-ALL).
    case cancelAll
    /// `addOperations(_:waitUntilFinished: true)` whenever the batch cannot be held back (QUEUE-ADD-WAIT).
    case waitingAdd
    /// A queue suspended while an operation of it runs (QUEUE-SUSPEND-RUNNING-CONTINUE).
    case suspendRunning
    /// `removeDependency` of an edge before the adds (DEP-REMOVE-RESTORES).
    case removeDependency
    /// A misuse case (the START-*-THROWS, DEP-SELF, DEP-CYCLE, ...-LATE-THROWS rules): raised
    /// only when the run's misuse rate is above 0, never from nothing.
    case misuse
    /// Queue priorities, the undefined values among them, and a priority set while running
    /// (PRIORITY-NORMALIZE, PRIORITY-ORDER, KVO-QUEUE-PRIORITY).
    case priority
    /// An operation cancelled before it is added or started (CANCEL-*, READY-CANCELLED).
    case cancel
}
