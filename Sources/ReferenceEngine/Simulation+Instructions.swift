import OperationSpec

extension Simulation {
    /// Executes one instruction on the current thread: one atomic step of the simulation.
    func perform(_ instr: Instr, this: Int) {
        switch instr {
        case .step(let step): perform(step, this: this)
        case .action(let action): perform(action)
        case .stepIssued(let i): emit(.stepIssued(i))
        case .stepDone(let i): emit(.stepDone(i))
        case .awaitTrigger(let step, let trigger):
            push(Frame([.afterTrigger(step: step, trigger)]))
            if !satisfied(.trigger(step: step, trigger)) { block(.trigger(step: step, trigger)) }
        case .afterTrigger(let step, let trigger):
            if !happened(trigger) { emit(.triggerMissed(step)) }
        case .callStart(let op, let caller):
            let call = Call.start(op, by: caller)
            emit(.call(call))
            if let program = ops[op].kind.program {
                push(Frame(steps: program.start, this: op, exit: .returned(call)))
            } else {
                push(Frame([.defaultStart(op, checkReady: caller != .queue)], this: op, exit: .returned(call)))
            }
        case .defaultStart(let op, let checkReady): defaultStart(op, checkReady: checkReady)
        case .invokeMain(let op):
            emit(.mainBegan(op: op, threadPriority: threads[current].priority))
            if has(.completionBeforeFinish) { spawnCompletion(op) }
            push(Frame(steps: ops[op].mainBody, this: op, exit: .mainEnded(op)))
        case .runBlocks(let op):
            emit(.mainBegan(op: op, threadPriority: threads[current].priority))
            ops[op].blocksLeft = ops[op].blocks.count
            blocksChanged(op)
            if has(.blocksRunSerially) {
                for (i, body) in ops[op].blocks.enumerated().reversed() {
                    push(Frame(steps: body, opening: .beginBlock(op, i), this: op, exit: .blockEnded(op, i)))
                }
            } else {
                // Each block runs for the queue main runs for (nil when started by hand).
                let runsFor = threads[current].currentQueue
                for (i, body) in ops[op].blocks.enumerated() {
                    spawn(
                        name: "block \(op).\(i)", currentQueue: runsFor,
                        Frame(steps: body, opening: .beginBlock(op, i), this: op, exit: .blockEnded(op, i)))
                }
            }
        case .joinBlocks(let op):
            let early = has(.blockOperationFinishesEarly) && ops[op].blocksLeft < ops[op].blocks.count
            if ops[op].blocksLeft > 0 && !early {
                push(Frame([.joinBlocks(op)], this: op))
                block(.blocks(op))
            } else {
                emit(.mainEnded(op: op))
            }
        case .baseFinish(let op):
            // Listing 2-7's order: will isFinished, will isExecuting, change, did isExecuting, did isFinished.
            threads[current].priority = 0.5
            if !has(.finishUnannounced) { emit(.willChange(op: op, .isFinished, ops[op].value(.isFinished))) }
            emit(.willChange(op: op, .isExecuting, ops[op].value(.isExecuting)))
            if has(.finishedWhileExecuting) {
                // Notifies before it stores: isExecuting is announced while still YES.
                ops[op].finished = true
                didChange(op, .isFinished)
                didChange(op, .isExecuting)
                ops[op].executing = false
            } else {
                ops[op].executing = false
                ops[op].finished = true
                didChange(op, .isExecuting)
                didChange(op, .isFinished)
            }
        case .beginBlock(let op, let i): emit(.blockBegan(op: op, block: i))
        case .runHandedBlock(let op): runHandedBlock(op)
        case .finishHandedBlock(let op):
            ops[op].executing = false
            finishUnseen(op)
        case .beginCompletion(let op): emit(.completionBegan(op: op, threadPriority: threads[current].priority))
        case .afterWait(let call, let reads, let countOf):
            emit(.returned(call))
            if let q = countOf { emit(.operationCount(queue: q, queues[q].count)) }
            for op in reads { emit(.read(op: op, .isFinished, ops[op].value(.isFinished))) }
        case .afterAwait(let token):
            emit(.awaited(token: token, satisfied: tokens.contains(token)))
        }
    }

    /// The default `start` (004 2.9.2): refuses when finished, executing or not ready; an operation
    /// cancelled before it starts goes straight to finished without running main; otherwise it
    /// becomes executing, runs main on this thread at its thread priority, and finishes.
    /// A queue calls start only on an operation it found ready; a dependency added since "may not
    /// prevent" it from running (004 2.6.1), so the queue's own start does not check again.
    private func defaultStart(_ op: Int, checkReady: Bool) {
        // Fields are read one by one, as in `refreshReady`: a copy of the operation retains
        // and releases its arrays.
        if ops[op].finished {
            if options.profile == .classReference { return }
            return throwFromCall(.alreadyFinished, "operation \(op) is already finished")
        }
        let executing = ops[op].executing
        if executing && !has(.secondStartRuns) {
            return throwFromCall(.alreadyExecuting, "operation \(op) is already executing")
        }
        if checkReady && !ops[op].ready && !has(.startWhenNotReady) {
            return throwFromCall(.notReady, "operation \(op) is not ready: a dependency has not finished")
        }
        if ops[op].cancelled && !has(.startIgnoresCancel) {
            emit(.willChange(op: op, .isFinished, .bool(false)))
            ops[op].finished = true
            didChange(op, .isFinished)
            return
        }
        emit(.willChange(op: op, .isExecuting, .bool(executing)))
        ops[op].executing = true
        didChange(op, .isExecuting)
        threads[current].priority = has(.threadPriorityIgnored) ? 0.5 : ops[op].threadPriority
        if has(.invocationSkippedByHand), checkReady, case .invocation = ops[op].kind {
            return push(Frame([.baseFinish(op)], this: op))
        }
        let body: [Instr] =
            ops[op].kind.isBlock
            ? [.runBlocks(op), .joinBlocks(op), .baseFinish(op)] : [.invokeMain(op), .baseFinish(op)]
        if has(.flaggedStartDetaches), ops[op].kind.reportsConcurrent {
            return spawn(
                name: "detached main \(op)", currentQueue: threads[current].currentQueue, Frame(body, this: op))
        }
        push(Frame(body, this: op))
    }

    /// The operation a queue made for a block handed to `addOperationWithBlock:`, started by
    /// the queue on its worker: what the default start does, with nothing logged but the block's
    /// `blockBegan` and `blockEnded` (nobody holds the object: there is no start call to see, and
    /// no observer of its keys). Cancelled before it ran (by `cancelAllOperations`), it finishes
    /// without running its block.
    private func runHandedBlock(_ op: Int) {
        if ops[op].cancelled { return finishUnseen(op) }
        ops[op].executing = true
        ops[op].blocksLeft = 1
        push(Frame([.finishHandedBlock(op)], this: op))
        push(Frame(steps: ops[op].blocks.first ?? [], opening: .beginBlock(op, 0), this: op, exit: .blockEnded(op, 0)))
    }

    /// An operation made for a block finishes: its queue sees it as it sees any finish (the slot
    /// is freed, the operation leaves, waiters wake), with no notification in the trace.
    private func finishUnseen(_ op: Int) {
        ops[op].finished = true
        observe(op, .isFinished)
    }

    /// Sends the did-change notification and lets the base class's observers react: an operation
    /// whose finish is seen leaves its queue, frees its slot, releases its dependents, wakes its
    /// waiters and schedules its completion block (004 2.5.3, 2.6.1, 2.6.4, 2.7.1.2).
    func didChange(_ op: Int, _ key: StateKey) {
        emit(.didChange(op: op, key, ops[op].value(key)))
        observe(op, key)
    }

    /// What the base class's observers do on a did-change of `key` (`didChange`, which logs it
    /// first; or a finish nobody can observe, `finishUnseen`).
    private func observe(_ op: Int, _ key: StateKey) {
        switch key {
        case .isFinished where ops[op].finished && !ops[op].finishSeen:
            ops[op].finishSeen = true
            record(.finished(op))
            if let q = ops[op].queue {
                if !has(.finishedStayInQueue) { queues[q].remove(op) }
                if ops[op].dispatched { queues[q].running -= 1 }
            }
            refreshReady(op)
            // Every dependent this finish releases becomes ready before any queue chooses, so a
            // queue picks among all of them by priority (004 2.6.2), not the first one refreshed.
            for d in ops[op].dependents { refreshReady(d, pump: false) }
            var released: [Int] = []
            for d in ops[op].dependents {
                if let q = ops[d].queue, startable(d), !released.contains(q) { released.append(q) }
            }
            for q in released { pump(q) }
            if !ops[op].completionSpawned { spawnCompletion(op) }
            if has(.completionRunsTwice) { spawnCompletion(op) }
            if let q = ops[op].queue { pump(q) }
        case .isExecuting, .isFinished, .isCancelled:
            refreshReady(op)
        default: break
        }
    }

    func spawnCompletion(_ op: Int) {
        guard let body = ops[op].completion else { return }
        ops[op].completionSpawned = true
        spawn(
            name: "completion \(op)",
            Frame(steps: body, opening: .beginCompletion(op), this: op, exit: .completionEnded(op)))
    }

    /// Recomputes what the operation reports for isReady and notifies a change (004 2.5.4).
    /// Ready: cancelled, executing or finished (003 isReady), or every dependency seen finished;
    /// and, for an operation whose class overrides isReady (`readyAfterSignal`), its token
    /// signalled too: the override returns `[super isReady] && signalled` (004, "Configuring
    /// Interoperation Dependencies"), so a cancelled one still waits for its token.
    func refreshReady(_ op: Int, pump pumpQueue: Bool = true) {
        // Fields are read one by one: copying the whole operation (its arrays) per call was a
        // measurable part of a large run.
        let queue = ops[op].queue
        let cancelled = ops[op].cancelled && !has(.cancelledNotReady)
        let depsDone = has(.readyIgnoresDependencies) || ops[op].deps.allSatisfy {
                ops[$0].finishSeen
                    || (has(.crossQueueDependencyIgnored) && ops[$0].queue != nil && queue != nil
                        && ops[$0].queue != queue)
        }
        let base = cancelled || ops[op].executing || ops[op].finished || depsDone
        let ready = base && overrideAllows(op)
        let wasStartable = startable(op)
        ops[op].baseReady = base
        let was = ops[op].ready
        if ready != was {
            if !has(.readinessUnannounced) { emit(.willChange(op: op, .isReady, .bool(was))) }
            ops[op].ready = ready
            emit(.didChange(op: op, .isReady, .bool(ready)))
            if has(.finishStartsDependents), ready, queue == nil, !ops[op].deps.isEmpty, !ops[op].executing,
                !ops[op].finished
            {
                spawn(name: "dependent start \(op)", Frame([.callStart(op, .queue)]))
            }
        }
        guard startable(op) && !wasStartable else { return }
        offer(op)
        if pumpQueue, let q = queue { pump(q) }
    }

    /// Whether the operation's own isReady override lets it be ready: no override, or its
    /// token has been signalled.
    func overrideAllows(_ op: Int) -> Bool {
        guard let token = ops[op].readyAfterSignal else { return true }
        return tokens.contains(token)
    }

    /// Whether a queue may start the operation: it reports isReady YES. Under the
    /// `readyOverrideIgnored` fault the queue looks at the base class's readiness only, as if
    /// the class did not override isReady.
    func startable(_ op: Int) -> Bool {
        has(.readyOverrideIgnored) ? ops[op].baseReady : ops[op].ready
    }

    /// Token `token` was just signalled by the current thread's code, and the `signal` event
    /// logged: the code that signals is the code of the subclasses whose isReady override waits
    /// for it, and it does what 004 asks of such a subclass ("When the readiness status of your
    /// operation object changes, generate KVO notifications for the isReady key path"): a
    /// will-change then a did-change of isReady for each, in operation-number order. Both carry
    /// what the getter returns when they are sent, as a driver logs them: the override reads the
    /// token, so the new value. A queue starts the operation on the did-change, once it is ready.
    private func notifyOverrides(of token: Int) {
        guard let waiting = readinessOverrides[token] else { return }
        for op in waiting {
            emit(.willChange(op: op, .isReady, getter(op, .isReady)))
            emit(.didChange(op: op, .isReady, getter(op, .isReady)))
            if startable(op) {
                offer(op)
                if let q = ops[op].queue { pump(q) }
            }
        }
    }

    /// Where an operation stands among a queue's start candidates: higher priority first (004
    /// 2.6.2), or all alike when the `priorityIgnored` fault is on.
    func rank(_ op: Int) -> Int { has(.priorityIgnored) ? 0 : -ops[op].priority }

    /// Offers a ready operation to every queue that holds it (two only under `addedTwice`).
    func offer(_ op: Int) {
        for q in queues.indices { queues[q].offer(op, rank: rank(op)) }
    }

    /// Starts what the queue may start: never while suspended, never beyond its width, the
    /// highest priority ready operation first, and among equals the earliest added (004 2.6.2, 2.9.1).
    func pump(_ q: Int) {
        while !queues[q].suspended || has(.suspensionIgnored) || has(.suspendedRunsBlocks) {
            var width =
                queues[q].maxConcurrent == QueueConfig.defaultMax ? options.defaultWidth : queues[q].maxConcurrent
            if has(.oneTooMany) && queues[q].maxConcurrent != QueueConfig.defaultMax { width += 1 }
            guard queues[q].running < width else { return }
            let op: Int
            if queues[q].suspended && !has(.suspensionIgnored) {
                // `suspendedRunsBlocks`: a suspended queue still starts the operations it made for
                // blocks, found without touching the candidates (whose stale entries it drops).
                guard let block = queues[q].ops.first(where: { ops[$0].hidden && !ops[$0].dispatched && startable($0) })
                else { return }
                op = block
            } else {
                guard
                    let next = queues[q].takeCandidate({ op, rank in
                        !ops[op].dispatched && startable(op) && rank == self.rank(op)
                    })
                else { return }
                op = next
            }
            ops[op].dispatched = true
            queues[q].running += 1
            workerNumber += 1
            // GNUstep's names (003): `NSOperationQ_<number>`, or `<name>_<number>` once the queue
            // has a name.
            let name = "\(queues[q].name ?? "NSOperationQ")_\(workerNumber)"
            spawn(name: name, queue: q, Frame([ops[op].hidden ? .runHandedBlock(op) : .callStart(op, .queue)]))
        }
    }

    // MARK: Steps of operation code

    private func perform(_ step: Step, this op: Int) {
        switch step {
        case .work(let units):
            // Zero work is a scheduling point only: the thread stays runnable.
            if units > 0 {
                emit(.work(op: op, units: units))
                setState(current, .sleeping(until: now + units))
            }
        case .returnIfCancelled:
            if evaluate(.isCancelled(.this), this: op) { returnFromRoutine() }
        case .if(let condition, let then, let otherwise):
            push(Frame(steps: evaluate(condition, this: op) ? then : otherwise, this: op))
        case .repeat(let n, let body):
            push(Frame(repeating: body, times: n, this: op))
        case .return:
            returnFromRoutine()
        case .willChange(let key):
            emit(.willChange(op: op, key, ops[op].value(key)))
        case .didChange(let key):
            didChange(op, key)
        case .willChangeUnprefixed, .didChangeUnprefixed:
            // Sent as `finished` / `executing`: the documents' observers, and the queue, watch
            // `isFinished` and `isExecuting` (004 2.5.4), so nobody hears it and nothing is logged.
            break
        case .set(let key, let value):
            emit(.set(op: op, key, value))
            if key == .isExecuting { ops[op].executing = value }
            if key == .isFinished { ops[op].finished = value }
        case .call(let name):
            push(Frame(steps: ops[op].kind.program?.routine(named: name) ?? [], this: op, exit: .plain))
        case .callMain:
            push(Frame([.invokeMain(op)], this: op))
        case .callSuperStart:
            let call = Call.superStart(op)
            emit(.call(call))
            push(Frame([.defaultStart(op, checkReady: true)], this: op, exit: .returned(call)))
        case .spawn(let method, let ref):
            let target = ref.resolve(op)
            let code: [Instr] = method == .start ? [.callStart(target, .program)] : [.invokeMain(target)]
            spawn(name: "detached \(method.rawValue) \(target)", Frame(code, this: target))
        case .start(let ref):
            push(Frame([.callStart(ref.resolve(op), .program)], this: op))
        case .cancel(let ref):
            cancel(ref.resolve(op))
        case .cancelAll(let q):
            cancelAll(q)
        case .read(let key, let ref):
            let target = ref.resolve(op)
            emit(.read(op: target, key, getter(target, key)))
        case .signal(let token):
            tokens.insert(token)
            tokenSignalled(token)
            // An isReady override that waits for the token says YES from now on (the getter
            // reads the token), whatever the notifications below say.
            if let waiting = readinessOverrides[token] { for o in waiting { ops[o].ready = ops[o].baseReady } }
            emit(.signal(token: token))
            notifyOverrides(of: token)
        case .readCurrentQueue:
            // The queue this thread's code runs for (`VirtualThread.currentQueue`).
            emit(.currentQueue(op: op, queue: threads[current].currentQueue))
        case .readUnderlyingQueue:
            // The underlying queue of the queue this code runs for, as `readCurrentQueue` finds it.
            let underlying = threads[current].currentQueue.flatMap { queues[$0].underlyingQueue }
            emit(.underlyingQueue(op: op, dispatchQueue: underlying))
        case .await(let token, let timeout):
            push(Frame([.afterAwait(token)], this: op))
            if !tokens.contains(token) { block(.token(token), deadline: now + max(1, timeout)) }
        }
    }

    private func evaluate(_ condition: Condition, this op: Int) -> Bool {
        func read(_ key: StateKey, _ ref: OpRef) -> Bool {
            let target = ref.resolve(op)
            let value = getter(target, key)
            emit(.read(op: target, key, value))
            return value.bool ?? false
        }
        switch condition {
        case .isCancelled(let r): return read(.isCancelled, r)
        case .isReady(let r): return read(.isReady, r)
        case .isConcurrent(let r): return read(.isConcurrent, r)
        case .isExecuting(let r): return read(.isExecuting, r)
        case .isFinished(let r): return read(.isFinished, r)
        case .not(let c): return !evaluate(c, this: op)
        case .and(let a, let b): return evaluate(a, this: op) && evaluate(b, this: op)
        }
    }
}
