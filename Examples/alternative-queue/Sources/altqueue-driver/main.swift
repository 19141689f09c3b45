import AltQueue
import OperationDriverKit

extension AltQueue: QueueUnderTest {}

OperationDriver(name: "altqueue", queue: { AltQueue() }).main()
