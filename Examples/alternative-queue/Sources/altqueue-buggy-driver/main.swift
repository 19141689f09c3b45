import AltQueue
import Conformance

extension AltQueue: QueueUnderTest {}

OperationDriver(name: "altqueue-buggy", queue: { AltQueue(bug: .widthOffByOne) }).main()
