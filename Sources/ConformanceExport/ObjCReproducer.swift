import Conformance
import Foundation
import OperationSpec

/// Writes a finding as one Objective-C program for GNUstep Base, built with gcc and
/// `gnustep-config`: the scenario's operations as classes of their own, its driver as straight
/// code, the claims as checks at the end. It repeats the scenario `runs` times and exits 1 at the
/// first run in which a claim fails (printing the claim, what was seen, and the run's events),
/// 0 when every run held.
struct ObjCReproducer {
    let scenario: Scenario
    let claims: [Claim]
    let header: [String]
    let runs: Int
    /// Seconds a wait or a trigger may take before it counts as stuck.
    let bound: Double

    private var out: [String] = []
    private var functions: [String] = []

    init(scenario: Scenario, claims: [Claim], header: [String], runs: Int, bound: Double) {
        self.scenario = scenario
        self.claims = claims
        self.header = header
        self.runs = runs
        self.bound = bound
    }

    static func keyConstant(_ k: StateKey) -> String {
        var out = "K_"
        for c in k.rawValue { if c.isUppercase { out += "_" }; out += c.uppercased() }
        return out
    }

    static func pattern(_ p: EventPattern) -> String { "P(\(p.kind.constant), \(p.op), \(p.a), \(p.b))" }

    static func call(_ c: Claim.Check) -> String {
        switch c {
        case .occurs(let p): return "occurs(\(pattern(p)))"
        case .never(let p): return "never(\(pattern(p)))"
        case .before(let p, let q): return "before(\(pattern(p)), \(pattern(q)))"
        case .countIs(let p, let n): return "countIs(\(pattern(p)), \(n))"
        case .valuesAfter(let a, let p, let v): return "valuesAfter(\(pattern(a)), \(pattern(p)), \(v))"
        case .callsAfterThrow(let call, let op, let a): return "callsAfterThrow(\(call.constant), \(op), \(pattern(a)))"
        case .duringCall(let call, let op, let p): return "duringCall(\(call.constant), \(op), \(pattern(p)))"
        case .implies(let p, let q): return "implies(\(pattern(p)), \(pattern(q)))"
        case .notDuring(let p, let f, let t): return "notDuring(\(pattern(p)), \(pattern(f)), \(pattern(t)))"
        case .balanced(let op): return "balanced(\(op))"
        case .bracketed(let op, let key): return "bracketed(\(op), \(keyConstant(key)))"
        case .finishOrder(let op): return "finishOrder(\(op))"
        case .exclusive(let op): return "exclusive(\(op))"
        case .startAnnounces(let op): return "startAnnounces(\(op))"
        case .threadPrefix(let op, let prefix): return "threadPrefix(\(op), \(ObjCSource.string(prefix)))"
        case .atMostRunning(let ops, let width):
            return "atMostRunning((int[]){\(ops.map(String.init).joined(separator: ", "))}, \(ops.count), \(width))"
        }
    }

    // MARK: the program

    mutating func text() -> String {
        var head = ["/*"] + header.map { ObjCSource.commentLine($0) } + [" */"]
        head += ["#import <Foundation/Foundation.h>", "#include <stdio.h>", "#include <unistd.h>", ""]
        let runtime = ObjCRuntime.text
        var interfaces: [String] = ["/* ---- The scenario's operations ---- */", ""]
        var implementations: [String] = []
        for (i, o) in scenario.operations.enumerated() where !ReproducerScenario.isBlockAdded(scenario, i) {
            let (interface, implementation) = operationClass(i, o)
            interfaces += interface
            implementations += implementation
        }
        let invocations = scenario.operations.indices.filter {
            if case .invocation = scenario.operations[$0].kind { return true }; return false
        }
        if !invocations.isEmpty {
            interfaces += ["@interface Target : NSObject"] + invocations.map { "- (id) invoke\($0);" } + ["@end", ""]
            implementations += ["@implementation Target"]
            for i in invocations {
                guard case .invocation(let body) = scenario.operations[i].kind else { continue }
                implementations +=
                    ["- (void) steps\(i)", "{"] + steps(body, this: i, selfExpr: "OP(\(i))", indent: 1) + ["}"]
                implementations += ["- (id) invoke\(i)", "{", "  [self steps\(i)];", "  return @\"result\";", "}"]
            }
            implementations += ["@end", ""]
        }
        let run = runOnce()
        return (head + [runtime] + interfaces + functions + [""] + implementations + run + mainFunction()).joined(
            separator: "\n") + "\n"
    }


    private func className(_ i: Int) -> String { "Op\(i)" }

    private func loggedOverrides(_ i: Int, readyToken: Int?, start: Bool = true) -> [String] {
        let ready = readyToken.map { "[super isReady] && tokenSignalled(\($0))" } ?? "[super isReady]"
        return (start ? [
            "- (void) start",
            "{",
            "  record(EV_START, \(i), -1, -1);",
            "  @try { [super start]; }",
            "  @catch (NSException *e) { record(EV_THREW, \(i), CALL_START, -1); @throw; }",
            "}"] : []) + [
            "- (void) cancel { CALL(CALL_CANCEL, \(i), [super cancel]); }",
            "- (BOOL) isReady { return logged(\(i), K_IS_READY, \(ready)); }",
            "- (BOOL) isCancelled { return logged(\(i), K_IS_CANCELLED, [super isCancelled]); }",
        ]
    }

    private mutating func operationClass(_ i: Int, _ o: OperationConfig) -> ([String], [String]) {
        let name = className(i)
        var interface: [String] = []
        var impl: [String] = ["@implementation \(name)"]
        let getters = [
            "- (BOOL) isExecuting { return logged(\(i), K_IS_EXECUTING, [super isExecuting]); }",
            "- (BOOL) isFinished { return logged(\(i), K_IS_FINISHED, [super isFinished]); }",
        ]
        switch o.kind {
        case .main(let body):
            interface = ["@interface \(name) : NSOperation", "- (void) steps;", "@end", ""]
            impl += loggedOverrides(i, readyToken: o.readyAfterSignal) + getters
            impl += [
                "- (void) main", "{", "  record(EV_MAIN_BEGAN, \(i), -1, -1);", "  taskThread(\(i));",
                "  [self steps];", "  record(EV_MAIN_ENDED, \(i), -1, -1);", "}"
            ]
            impl += ["- (void) steps", "{"] + steps(body, this: i, selfExpr: "self", indent: 1) + ["}"]
        case .block(let blocks):
            interface = ["@interface \(name) : NSBlockOperation", "@end", ""]
            impl += loggedOverrides(i, readyToken: o.readyAfterSignal) + getters
            impl += [
                "- (void) main", "{", "  record(EV_MAIN_BEGAN, \(i), -1, -1);", "  [super main];",
                "  record(EV_MAIN_ENDED, \(i), -1, -1);", "}"
            ]
            for (b, body) in blocks.enumerated() { function("block_\(i)_\(b)", body, this: i) }
        case .invocation:
            interface = ["@interface \(name) : NSInvocationOperation", "@end", ""]
            impl += loggedOverrides(i, readyToken: o.readyAfterSignal) + getters
            impl += [
                "- (void) main", "{", "  record(EV_MAIN_BEGAN, \(i), -1, -1);", "  taskThread(\(i));",
                "  [super main];", "  record(EV_MAIN_ENDED, \(i), -1, -1);", "}"
            ]
        case .concurrent(let p):
            interface =
                [
                    "@interface \(name) : NSOperation", "{", "  BOOL executing, finished;",
                    "  NSLock *stateLock;   /* guards executing and finished */", "}",
                    "- (void) storeExecuting: (BOOL)value;", "- (void) storeFinished: (BOOL)value;",
                    "- (void) superStart;", "- (void) startSteps;", "- (void) mainSteps;"
                ]
                + p.routines.map { "- (void) \(ReproducerScenario.routineName($0.name));" } + ["@end", ""]
            impl += [
                "- (id) init", "{", "  if ((self = [super init]) != nil)", "    stateLock = [NSLock new];",
                "  return self;", "}"
            ]
            impl += loggedOverrides(i, readyToken: o.readyAfterSignal, start: false)
            if p.overridesIsConcurrent {
                impl += ["- (BOOL) isConcurrent { return YES; }", "- (BOOL) isAsynchronous { return YES; }"]
            }
            impl += [
                "- (BOOL) isExecuting { BOOL v; [stateLock lock]; v = logged(\(i), K_IS_EXECUTING, executing); "
                    + "[stateLock unlock]; return v; }",
                "- (BOOL) isFinished { BOOL v; [stateLock lock]; v = logged(\(i), K_IS_FINISHED, finished); [stateLock "
                    + "unlock]; return v; }",
                "- (void) storeExecuting: (BOOL)value { [stateLock lock]; executing = value; record(EV_SET, \(i), "
                    + "K_IS_EXECUTING, value); [stateLock unlock]; }",
                "- (void) storeFinished: (BOOL)value { [stateLock lock]; finished = value; record(EV_SET, \(i), "
                    + "K_IS_FINISHED, value); [stateLock unlock]; }",
                "- (void) superStart { [super start]; }",
                "- (void) start", "{", "  record(EV_START, \(i), -1, -1);", "  [self startSteps];", "}",
                "- (void) main", "{", "  record(EV_MAIN_BEGAN, \(i), -1, -1);", "  taskThread(\(i));",
                "  [self mainSteps];", "  record(EV_MAIN_ENDED, \(i), -1, -1);", "}"
            ]
            impl += ["- (void) startSteps", "{"] + steps(p.start, this: i, selfExpr: "self", indent: 1) + ["}"]
            impl += ["- (void) mainSteps", "{"] + steps(p.main, this: i, selfExpr: "self", indent: 1) + ["}"]
            for r in p.routines {
                impl +=
                    ["- (void) \(ReproducerScenario.routineName(r.name))", "{"]
                    + steps(r.body, this: i, selfExpr: "self", indent: 1) + ["}"]
            }
        case .subclass:
            preconditionFailure("subclass operations are refused before a reproducer is written")
        }
        if let c = o.completion { function("completion_\(i)", c, this: i) }
        return (interface, impl + ["@end", ""])
    }


    /// A body that runs outside the operation's own methods (a block, a completion block, a
    /// perform): a C function, so its `return` leaves only it.
    private mutating func function(_ name: String, _ body: [Step], this: Int) {
        functions +=
            ["static void \(name)(void)", "{"] + steps(body, this: this, selfExpr: "OP(\(this))", indent: 1) + ["}", ""]
    }

    // MARK: steps

    private func ref(_ r: OpRef, this: Int, selfExpr: String) -> String {
        if case .op(let n) = r, n != this { return "OP(\(n))" }
        return selfExpr
    }

    private func typed(_ this: Int, _ selfExpr: String) -> String {
        selfExpr == "self" ? "self" : "((\(className(this)) *)\(selfExpr))"
    }

    private func condition(_ c: Condition, this: Int, selfExpr: String) -> String {
        switch c {
        case .isCancelled(let r): return "[\(ref(r, this: this, selfExpr: selfExpr)) isCancelled]"
        case .isReady(let r): return "[\(ref(r, this: this, selfExpr: selfExpr)) isReady]"
        case .isConcurrent(let r): return "[\(ref(r, this: this, selfExpr: selfExpr)) isConcurrent]"
        case .isExecuting(let r): return "[\(ref(r, this: this, selfExpr: selfExpr)) isExecuting]"
        case .isFinished(let r): return "[\(ref(r, this: this, selfExpr: selfExpr)) isFinished]"
        case .not(let c): return "!(\(condition(c, this: this, selfExpr: selfExpr)))"
        case .and(let a, let b):
            return
                "(\(condition(a, this: this, selfExpr: selfExpr)) && \(condition(b, this: this, selfExpr: selfExpr)))"
        }
    }

    private func steps(_ body: [Step], this: Int, selfExpr: String, indent: Int, depth: Int = 0) -> [String] {
        let pad = String(repeating: "  ", count: indent)
        var lines: [String] = []
        for s in body {
            switch s {
            case .work(let n): lines.append(pad + "work(\(n));")
            case .returnIfCancelled: lines.append(pad + "if ([\(selfExpr) isCancelled]) return;")
            case .if(let c, let then, let otherwise):
                lines.append(pad + "if (\(condition(c, this: this, selfExpr: selfExpr)))")
                lines.append(pad + "  {")
                lines += steps(then, this: this, selfExpr: selfExpr, indent: indent + 2, depth: depth)
                lines.append(pad + "  }")
                if !otherwise.isEmpty {
                    lines.append(pad + "else")
                    lines.append(pad + "  {")
                    lines += steps(otherwise, this: this, selfExpr: selfExpr, indent: indent + 2, depth: depth)
                    lines.append(pad + "  }")
                }
            case .repeat(let n, let inner):
                lines.append(pad + "{")
                lines.append(pad + "  int r\(depth);")
                lines.append(pad + "  for (r\(depth) = 0; r\(depth) < \(n); r\(depth)++)")
                lines.append(pad + "    {")
                lines += steps(inner, this: this, selfExpr: selfExpr, indent: indent + 3, depth: depth + 1)
                lines.append(pad + "    }")
                lines.append(pad + "}")
            case .return: lines.append(pad + "return;")
            case .willChange(let k): lines.append(pad + "[\(selfExpr) willChangeValueForKey: @\"\(k.rawValue)\"];")
            case .didChange(let k): lines.append(pad + "[\(selfExpr) didChangeValueForKey: @\"\(k.rawValue)\"];")
            case .willChangeUnprefixed(let k):
                lines.append(pad + "[\(selfExpr) willChangeValueForKey: @\"\(k.unprefixedName ?? k.rawValue)\"];")
            case .didChangeUnprefixed(let k):
                lines.append(pad + "[\(selfExpr) didChangeValueForKey: @\"\(k.unprefixedName ?? k.rawValue)\"];")
            case .set(let k, let v):
                lines.append(
                    pad
                        + "[\(typed(this, selfExpr)) \(k == .isFinished ? "storeFinished" : "storeExecuting"): "
                        + "\(v ? "YES" : "NO")];"
                )
            case .call(let name):
                lines.append(pad + "[\(typed(this, selfExpr)) \(ReproducerScenario.routineName(name))];")
            case .callMain: lines.append(pad + "@try { [\(selfExpr) main]; } @catch (NSException *e) { }")
            case .callSuperStart: lines.append(pad + "[\(typed(this, selfExpr)) superStart];")
            case .spawn(let m, let r): lines.append(pad + "spawn(\(r.resolve(this)), \(m == .start ? "YES" : "NO"));")
            case .start(let r): lines.append(pad + "startOp(\(r.resolve(this)));")
            case .cancel(let r):
                lines.append(
                    pad + "@try { [\(ref(r, this: this, selfExpr: selfExpr)) cancel]; } @catch (NSException *e) { }")
            case .read(let k, let r): lines.append(pad + "readKey(\(r.resolve(this)), \(Self.keyConstant(k)));")
            case .signal(let t):
                lines.append(pad + "signalToken(\(t));")
                for (i, o) in scenario.operations.enumerated() where o.readyAfterSignal == t {
                    lines.append(pad + "[OP(\(i)) willChangeValueForKey: @\"isReady\"];")
                    lines.append(pad + "[OP(\(i)) didChangeValueForKey: @\"isReady\"];")
                }
            case .await(let t, let timeout): lines.append(pad + "awaitToken(\(t), \(timeout));")
            case .readCurrentQueue: lines.append(pad + "(void)[NSOperationQueue currentQueue];")
            case .cancelAll(let q): lines.append(pad + "[Q(\(q)) cancelAllOperations];")
            case .readUnderlyingQueue: break   // refused before: RuleClaims.claims
            }
        }
        return lines
    }

    // MARK: the run

    private mutating func runOnce() -> [String] {
        var body: [String] = []
        var handed: [Int] = []
        func hand(_ op: Int) { if !handed.contains(op) { handed.append(op) } }
        body += ["  /* The queues and operations of the scenario, configured as it says. */"]
        for (q, c) in scenario.queues.enumerated() {
            body.append("  [queues addObject: [[NSOperationQueue new] autorelease]];")
            if let name = c.name { body.append("  [Q(\(q)) setName: \(ObjCSource.string(name))];") }
            if c.maxConcurrent != QueueConfig.defaultMax {
                body.append("  [Q(\(q)) setMaxConcurrentOperationCount: \(c.maxConcurrent)];")
            }
            if c.suspended { body.append("  [Q(\(q)) setSuspended: YES];") }
        }
        for (i, o) in scenario.operations.enumerated() {
            if ReproducerScenario.isBlockAdded(scenario, i) {
                body.append(
                    "  [ops addObject: [[NSOperation new] autorelease]];   /* a place holder: op \(i)'s block goes to "
                        + "addOperationWithBlock: */"
                )
                continue
            }
            switch o.kind {
            case .invocation:
                body.append(
                    "  [ops addObject: [[[\(className(i)) alloc] initWithTarget: target selector: "
                        + "@selector(invoke\(i)) object: nil] autorelease]];"
                )
            default:
                body.append("  [ops addObject: [[\(className(i)) new] autorelease]];")
            }
            if case .block(let blocks) = o.kind {
                for b in blocks.indices {
                    body.append(
                        "  [(NSBlockOperation *)OP(\(i)) addExecutionBlock: (GSBlockOperationBlock)[StepsBlock block: "
                            + "block_\(i)_\(b) op: \(i) number: \(b) role: 0]];"
                    )
                }
            }
            body.append("  observe(OP(\(i)));")
            if let p = o.queuePriority { body.append("  [OP(\(i)) setQueuePriority: \(p)];") }
            if let t = o.threadPriority { body.append("  [OP(\(i)) setThreadPriority: \(t)];") }
            if o.completion != nil {
                body.append(
                    "  CALL(CALL_SET_COMPLETION_BLOCK, \(i), [OP(\(i)) setCompletionBlock: "
                        + "(GSOperationCompletionBlock)[StepsBlock block: completion_\(i) op: "
                        + "\(i) number: 0 role: 1]]);"
                )
            }
        }
        for d in scenario.dependencies { body.append("  [OP(\(d.op)) addDependency: OP(\(d.on))];") }
        var blocksAdded: [Int: Int] = [:]
        for (k, step) in scenario.driver.enumerated() {
            body.append("")
            body.append("  " + ObjCSource.comment("driver step \(k): " + ReproducerScenario.describe(step)))
            body.append("  if (abandoned) goto done;")
            if let t = step.after {
                switch t {
                case .started(let op): body.append("  after(P(EV_START, \(op), -1, -1));")
                case .mainBegan(let op): body.append("  after(P(EV_MAIN_BEGAN, \(op), -1, -1));")
                case .blockBegan(let op, let b): body.append("  after(P(EV_BLOCK_BEGAN, \(op), \(b), -1));")
                case .finished(let op): body.append("  afterFinished(\(op));")
                case .signaled(let t): body.append("  afterSignal(\(t));")
                }
            }
            switch step.action {
            case .add(let op, let q):
                hand(op)
                body.append("  CALL(CALL_ADD, \(op), [Q(\(q)) addOperation: OP(\(op))]);")
            case .addBatch(let list, let q, let wait):
                list.forEach(hand)
                let array = "[NSArray arrayWithObjects: " + list.map { "OP(\($0)), " }.joined() + "nil]"
                if wait {
                    body.append("  bounded(CALL_ADD_BATCH, \(q), \(array), YES);")
                    body += list.map { "  if (!abandoned) readKey(\($0), K_IS_FINISHED);" }
                } else {
                    body.append(
                        "  CALL(CALL_ADD_BATCH, \(q), [Q(\(q)) addOperations: \(array) waitUntilFinished: NO]);")
                }
            case .start(let op):
                hand(op)
                body.append("  startOp(\(op));")
            case .perform(let op, let steps):
                function("perform_\(k)", steps, this: op)
                body.append("  perform_\(k)();")
            case .cancel(let op): body.append("  @try { [OP(\(op)) cancel]; } @catch (NSException *e) { }")
            case .cancelAll(let q): body.append("  [Q(\(q)) cancelAllOperations];")
            case .suspend(let q): body.append("  [Q(\(q)) setSuspended: YES];")
            case .resume(let q): body.append("  [Q(\(q)) setSuspended: NO];")
            case .setMaxConcurrent(let q, let n): body.append("  [Q(\(q)) setMaxConcurrentOperationCount: \(n)];")
            case .addDependency(let op, let on):
                body.append("  CALL(CALL_ADD_DEPENDENCY, \(op), [OP(\(op)) addDependency: OP(\(on))]);")
            case .removeDependency(let op, let on):
                body.append("  CALL(CALL_REMOVE_DEPENDENCY, \(op), [OP(\(op)) removeDependency: OP(\(on))]);")
            case .waitUntilFinished(let op):
                body.append("  bounded(CALL_WAIT_UNTIL_FINISHED, \(op), nil, 0);")
                body.append("  if (!abandoned) readKey(\(op), K_IS_FINISHED);")
            case .waitUntilAllFinished(let q):
                body.append("  bounded(CALL_WAIT_UNTIL_ALL_FINISHED, \(q), nil, 0);")
                body += ReproducerScenario.addedTo(scenario, q, before: k).map {
                    "  if (!abandoned) readKey(\($0), K_IS_FINISHED);"
                }
            case .setCompletionBlock(let op, let steps):
                function("setCompletion_\(k)", steps, this: op)
                body.append(
                    "  CALL(CALL_SET_COMPLETION_BLOCK, \(op), [OP(\(op)) setCompletionBlock: "
                        + "(GSOperationCompletionBlock)[StepsBlock block: setCompletion_\(k) op: "
                        + "\(op) number: 0 role: 1]]);"
                )
            case .addExecutionBlock(let op, let steps):
                let number = scenario.operations[op].kind.blockCount + blocksAdded[op, default: 0]
                blocksAdded[op, default: 0] += 1
                function("addBlock_\(k)", steps, this: op)
                body.append(
                    "  CALL(CALL_ADD_EXECUTION_BLOCK, \(op), [(NSBlockOperation *)OP(\(op)) addExecutionBlock: "
                        + "(GSBlockOperationBlock)[StepsBlock block: addBlock_\(k) op: \(op) "
                        + "number: \(number) role: 0]]);"
                )
            case .setQueuePriority(let op, let p): body.append("  [OP(\(op)) setQueuePriority: \(p)];")
            case .setThreadPriority(let op, let p): body.append("  [OP(\(op)) setThreadPriority: \(p)];")
            case .read(let key, let op): body.append("  readKey(\(op), \(Self.keyConstant(key)));")
            case .readOperationCount(let q): body.append("  (void)[Q(\(q)) operationCount];")
            case .result(let op):
                body.append("  CALL(CALL_RESULT, \(op), [(NSInvocationOperation *)OP(\(op)) result]);")
            case .addBlock(let op, let q):
                guard case .block(let blocks) = scenario.operations[op].kind, let only = blocks.first else { continue }
                function("queueBlock_\(op)", only, this: op)
                body.append(
                    "  [Q(\(q)) addOperationWithBlock: (GSBlockOperationBlock)[StepsBlock block: queueBlock_\(op) op: "
                        + "\(op) number: 0 role: 0]];"
                )
            case .readSuspended(let q): body.append("  (void)[Q(\(q)) isSuspended];")
            case .readOperations(let q): body.append("  (void)[Q(\(q)) operations];")
            case .releaseQueue, .readQueueDeallocated, .setUnderlyingQueue: break   // refused before: RuleClaims.claims
            case .readMainQueue: body.append("  (void)[NSOperationQueue mainQueue];")
            case .sleep(let n): body.append("  work(\(n));")
            }
        }
        var lines = ["/* ---- One run of the scenario, and the claims about it ---- */", "",
                     "static NSArray *runOnce(void)", "{",
                     "  NSMutableArray *failures = [NSMutableArray array];",
                     "  NSString *seen;"]
        lines.append(
            "  static const int handed[] = { "
                + (handed.isEmpty ? "-1" : handed.map(String.init).joined(separator: ", ")) + " };")
        lines.append(scenario.operations.contains { if case .invocation = $0.kind { return true }; return false }
                     ? "  Target *target = [[Target new] autorelease];" : "")
        lines += ["", "  [eventLock lock]; eventCount = 0; [eventLock unlock];",
                  "  abandoned = NO;", "  [tokenLock lock]; [signalled removeAllObjects]; [tokenLock unlock];",
                  "  ops = [NSMutableArray new];", "  queues = [NSMutableArray new];"]
        lines += body
        lines += ["", "done:",
                  "  /* Everything handed over has time to finish; then each operation's isFinished is read. */",
                  "  settle(\(handed.count), handed);"]
        lines += scenario.operations.indices.filter { !ReproducerScenario.isBlockAdded(scenario, $0) }.map {
            "  readKey(\($0), K_IS_FINISHED);"
        }
        lines.append("")
        for c in claims {
            lines.append("  " + ObjCSource.comment(c.sentence))
            lines.append("  if ((seen = \(Self.call(c.check))) != nil)")
            let sentence = ObjCSource.string(c.sentence)
            lines.append("    [failures addObject: [NSString stringWithFormat: @\"%@: instead, %@\", "
                         + sentence + ", seen]];")
        }
        lines += ["  return failures;", "}", ""]
        return lines
    }



    private func mainFunction() -> [String] {
        [
            "int main(void)",
            "{",
            "  NSAutoreleasePool *pool = [NSAutoreleasePool new];",
            "  const char *given = getenv(\"REPRO_RUNS\");",
            "  int runs = given ? atoi(given) : \(runs), all = getenv(\"REPRO_ALL\") != NULL, failed = 0, run, i;",
            "",
            "  eventLock = [NSLock new];",
            "  tokenLock = [NSCondition new];",
            "  signalled = [NSMutableSet new];",
            "  observer = [Observer new];",
            "  bound = \(String(format: "%.1f", bound));",
            "  for (run = 1; run <= runs; run++)",
            "    {",
            "      NSAutoreleasePool *inner = [NSAutoreleasePool new];",
            "      NSArray *failures = runOnce();",
            "",
            "      if ([failures count] > 0)",
            "        {",
            "          failed++;",
            "          if (failed == 1)",
            "            {",
            "              printf(\"FAILED on run %d of %d:\\n\", run, runs);",
            "              for (NSString *f in failures) printf(\"  %s\\n\", [f UTF8String]);",
            "              printf(\"the events of that run:\\n\");",
            "              for (i = 0; i < eventCount; i++) printf(\"  %s\\n\", [describe(i) UTF8String]);",
            "            }",
            "          if (!all) { fflush(stdout); _exit(1); }",
            "        }",
            "      [inner release];",
            "    }",
            "  if (failed > 0) printf(\"failed in %d of %d runs\\n\", failed, runs);",
            "  else printf(\"held in all %d runs\\n\", runs);",
            "  fflush(stdout);",
            "  [pool release];",
            "  _exit(failed > 0 ? 1 : 0);",
            "}",
        ]
    }
}
