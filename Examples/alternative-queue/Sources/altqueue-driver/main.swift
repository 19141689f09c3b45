import AltQueue
import Conformance

extension AltQueue: QueueUnderTest {}

OperationDriver(name: "altqueue", queue: { AltQueue() }).main()
