import OperationSpec
import ReferenceEngine
let s = Scenario(queues: [QueueConfig(maxConcurrent: 1)],
  operations: [OperationConfig(kind: .main([.work(3)]), completion: [.work(1)]),
               OperationConfig(kind: .block([[.work(1)], [.work(2)]])),
               OperationConfig(kind: .main([.returnIfCancelled, .work(2)]))],
  dependencies: [Edge(1, on: 0)],
  driver: [DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.cancel(2)), DriverStep(.start(2)), DriverStep(.waitUntilAllFinished(queue: 0))])
let t = ReferenceEngine().run(s, scheduleSeed: 7)
for e in t.events { print(e) }
for (rule, v) in RuleBook.verdicts(scenario: s, trace: t, profile: .guide) {
  if case .checked(let r) = v { print(rule.id, r.hits, r.violations.count); for x in r.violations { print(x) } } else { print(rule.id, v) }
}
print(RuleBook.all.count)
