import AltQueue
import OperationDriverKit

extension AltQueue: QueueUnderTest {}

OperationDriver(name: "altqueue-buggy", queue: { AltQueue(bug: .widthOffByOne) }).main()
