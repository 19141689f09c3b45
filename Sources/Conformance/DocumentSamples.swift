import OperationSpec

/// The documents' own sample operations, written as step programs, each inside a scenario that
/// drives it the way its document does. `Fixtures/samples/` holds their JSON in scenario format
/// 2 (`ScenarioFormat.encode`; a test keeps the two identical), the examples a person writing a
/// scenario by hand starts from. Where a listing leaves something out (how long "the work"
/// takes), the sample says what it chose.
package enum DocumentSamples {
    package struct Sample: Sendable {
        public let scenario: Scenario
        /// Where the code comes from.
        public let source: String
        /// What we chose where the document is silent.
        package let notes: String
    }

    public static let all: [Sample] = [
        listing2_3, listing2_4, listings2_5to2_7, listing2_8, english, chineseNonConcurrent, chineseConcurrent, russian
    ]

    // MARK: Apple's guide (004)

    /// Listing 2-3: a non-concurrent subclass; main does its work inside @try/@catch.
    static let listing2_3 = Sample(
        scenario: Scenario(name: "guide-listing-2-3",
            queues: [QueueConfig()],
            operations: [OperationConfig(kind: .main([.work(2)])), OperationConfig(kind: .main([.work(2)]))],
            driver: [DriverStep(.read(.isConcurrent, op: 0)), DriverStep(.start(0)), DriverStep(.add(op: 1, queue: 0)),
                     DriverStep(.waitUntilAllFinished(queue: 0))]),
        source: "004 2.5.1 Listing 2-3 (MyNonConcurrentOperation)",
        notes: "The work is 2 units; one instance is started by hand, one through a queue.")

    /// Listing 2-4: main checks isCancelled on every pass of its loop.
    static let cancellationLoop: [Step] = [.repeat(4, [.returnIfCancelled, .work(1)])]
    static let listing2_4 = Sample(
        scenario: Scenario(
            name: "guide-listing-2-4",
            queues: [QueueConfig()],
            operations: [
                OperationConfig(kind: .main(cancellationLoop)), OperationConfig(kind: .main(cancellationLoop)),
                OperationConfig(kind: .main(cancellationLoop))
            ],
            driver: [
                DriverStep(.cancel(2)), DriverStep(.add(op: 0, queue: 0)), DriverStep(.add(op: 1, queue: 0)),
                DriverStep(.add(op: 2, queue: 0)),
                DriverStep(after: .mainBegan(0), .cancel(0)), DriverStep(.waitUntilAllFinished(queue: 0)),
                DriverStep(.read(.isCancelled, op: 0)), DriverStep(.read(.isFinished, op: 2))
            ]),
        source: "004 2.5.2 Listing 2-4",
        notes:
            "The loop runs at most 4 passes of 1 unit (isDone after 4). One instance is cancelled while main runs, one "
                + "before it is added, one never."
    )

    /// Listings 2-5 to 2-7: MyOperation, the guide's concurrent subclass, exactly as listed:
    /// start detaches main on a new thread and only then sets executing and notifies.
    package static let myOperation = ConcurrentProgram(
        overridesIsConcurrent: true,
        start: [
            .if(
                .isCancelled(.this),
                then: [.willChange(.isFinished), .set(.isFinished, true), .didChange(.isFinished), .return], else: []),
            .willChange(.isExecuting),
            .spawn(.main, .this),
            .set(.isExecuting, true),
            .didChange(.isExecuting),
        ],
        main: [.call("completeOperation")],
        routines: [Routine("completeOperation", [
            .willChange(.isFinished), .willChange(.isExecuting),
            .set(.isExecuting, false), .set(.isFinished, true),
            .didChange(.isExecuting), .didChange(.isFinished),
        ])])

    static func myOperation(work: Int) -> ConcurrentProgram {
        var p = myOperation
        p.main = (work > 0 ? [.work(work)] : []) + p.main
        return p
    }

    static let listings2_5to2_7 = Sample(
        scenario: Scenario(
            name: "guide-listings-2-5-to-2-7",
            queues: [QueueConfig()],
            operations: [
                OperationConfig(kind: .concurrent(myOperation(work: 0))),
                OperationConfig(kind: .concurrent(myOperation(work: 2))),
                OperationConfig(kind: .concurrent(myOperation(work: 0))),
                OperationConfig(kind: .concurrent(myOperation(work: 0)))
            ],
            driver: [
                DriverStep(.start(0)), DriverStep(.add(op: 1, queue: 0)), DriverStep(.cancel(2)), DriverStep(.start(2)),
                DriverStep(.add(op: 3, queue: 0)), DriverStep(.read(.isConcurrent, op: 0)),
                DriverStep(.waitUntilFinished(0)), DriverStep(.waitUntilAllFinished(queue: 0))
            ]),
        source: "004 2.5.3 Listings 2-5 (interface, getters), 2-6 (start), 2-7 (main, completeOperation)",
        notes:
            "\"Do the main work\" is empty in three instances and 2 units in one; instances are started by hand, "
                + "through a queue, and after cancel."
    )

    /// Listing 2-8: performOperation:, written as a method of the operation itself (its
    /// cancelled branch changes `self`'s executing and finished, so `self` must be an operation).
    public static let performOperation: [Step] = [
        .if(.and(.isReady(.this), .not(.isCancelled(.this))),
            then: [.if(.not(.isConcurrent(.this)), then: [.start(.this)], else: [.spawn(.start, .this)])],
            else: [.if(.isCancelled(.this), then: [
                .willChange(.isFinished), .willChange(.isExecuting),
                .set(.isExecuting, false), .set(.isFinished, true),
                .didChange(.isExecuting), .didChange(.isFinished),
            ], else: [])]),
    ]

    static let listing2_8 = Sample(
        scenario: Scenario(
            name: "guide-listing-2-8",
            queues: [QueueConfig()],
            operations: [
                OperationConfig(kind: .concurrent(myOperation(work: 0))),
                OperationConfig(kind: .concurrent(myOperation(work: 0))),
                OperationConfig(kind: .concurrent(myOperation(work: 0))), OperationConfig(kind: .main([.work(3)]))
            ],
            dependencies: [Edge(2, on: 3)],
            driver: [
                DriverStep(.perform(op: 0, performOperation)), DriverStep(.cancel(1)),
                DriverStep(.perform(op: 1, performOperation)),
                DriverStep(.perform(op: 2, performOperation)), DriverStep(.add(op: 3, queue: 0)),
                DriverStep(.waitUntilFinished(0)), DriverStep(.waitUntilFinished(1)),
                DriverStep(.waitUntilAllFinished(queue: 0)),
                DriverStep(.perform(op: 2, performOperation)), DriverStep(.waitUntilFinished(2))
            ]),
        source: "004 2.9.2 Listing 2-8, applied to MyOperation of Listings 2-5 to 2-7",
        notes:
            "performOperation: runs on the driving thread for a ready operation, a cancelled one, and one not ready "
                + "until its dependency finishes (then it is performed again, as the guide suggests with a timer)."
    )

    // MARK: The English article (001)

    static let english = Sample(
        scenario: Scenario(
            name: "en-mynonconcurrentoperation-and-myoperation",
            queues: [QueueConfig()],
            operations: [
                OperationConfig(kind: .main([.repeat(1, [.returnIfCancelled, .work(1)])])),
                OperationConfig(kind: .concurrent(myOperation(work: 0))),
                OperationConfig(kind: .concurrent(myOperation(work: 1)))
            ],
            driver: [
                DriverStep(.add(op: 0, queue: 0)), DriverStep(.start(1)), DriverStep(.add(op: 2, queue: 0)),
                DriverStep(.waitUntilFinished(1)), DriverStep(.waitUntilAllFinished(queue: 0))
            ]),
        source: "001 (mynonconcurrentoperation's main; myoperation's start, main, completeoperation)",
        notes:
            "The English article's MyOperation is the guide's, line for line; its non-concurrent main loops until done "
                + "or cancelled (one pass of 1 unit)."
    )

    // MARK: The Chinese article (002)

    static let chineseNonConcurrent = Sample(
        scenario: Scenario(name: "zh-vinnyoperation",
            operations: [OperationConfig(kind: .main([.repeat(1, [.returnIfCancelled, .work(10)])]))],
            driver: [DriverStep(.start(0)), DriverStep(.read(.isFinished, op: 0))]),
        source: "002 section 1 (VinnyOperation, started with [op start] on the main thread)",
        notes: "sleep(10) is 10 units of work.")

    /// 002 section 2: MyOperation with isAsynchronous YES, run through its own performOperation:.
    static let chineseConcurrent = Sample(
        scenario: Scenario(
            name: "zh-myoperation-performoperation",
            operations: [
                OperationConfig(
                    kind: .concurrent(
                        ConcurrentProgram(
                            overridesIsConcurrent: true,
                            start: myOperation.start,
                            main: [.repeat(1, [.returnIfCancelled]), .call("completeOperation")],
                            routines: myOperation.routines))),
                OperationConfig(kind: .concurrent(myOperation(work: 0)))
            ],
            driver: [
                DriverStep(.perform(op: 0, performOperation)), DriverStep(.waitUntilFinished(0)),
                DriverStep(.cancel(1)), DriverStep(.perform(op: 1, performOperation)), DriverStep(.waitUntilFinished(1))
            ]),
        source: "002 section 2 (MyOperation: start, main, completeOperation, isAsynchronous, performOperation:)",
        notes:
            "[op performOperation:op] as in the article; isAsynchronous YES is isConcurrent YES here. A second "
                + "instance is cancelled first."
    )

    // MARK: The Russian article (000)

    /// 000: override isConcurrent to YES; in start, return if cancelled, otherwise call main
    /// from start; override isFinished and isExecuting. The article shows no KVO and no
    /// separate thread, and a cancelled start simply returns: taken as written.
    static let russian = Sample(
        scenario: Scenario(
            name: "ru-concurrent-subclass",
            queues: [QueueConfig()],
            operations: [
                OperationConfig(
                    kind: .concurrent(
                        ConcurrentProgram(
                            overridesIsConcurrent: true,
                            start: [
                                .if(.isCancelled(.this), then: [.return], else: []),
                                .set(.isExecuting, true), .callMain, .set(.isExecuting, false), .set(.isFinished, true)
                            ],
                            main: [.work(1)]))),
                OperationConfig(
                    kind: .concurrent(
                        ConcurrentProgram(
                            overridesIsConcurrent: true,
                            start: [
                                .if(.isCancelled(.this), then: [.return], else: []),
                                .set(.isExecuting, true), .callMain, .set(.isExecuting, false), .set(.isFinished, true)
                            ],
                            main: [.work(1)])))
            ],
            driver: [
                DriverStep(.add(op: 0, queue: 0)), DriverStep(.cancel(1)), DriverStep(.add(op: 1, queue: 0)),
                DriverStep(.readOperationCount(queue: 0))
            ]),
        source: "000 (the recipe for a concurrent subclass added to a queue)",
        notes:
            "The recipe names no KVO call and no thread; its state changes are written as plain ivar stores, and a "
                + "cancelled start returns without finishing, as the text says."
    )
}
