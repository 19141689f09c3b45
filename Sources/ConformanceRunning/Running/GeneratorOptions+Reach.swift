import ConformanceFormats
import OperationDriverKit
extension GeneratorOptions {
    /// Whether runs on `impl` set `reach`: a driver of the user's (named by path), or one that
    /// tests a subclass or a queue of its own (its hello names a subclass, or says it owns the
    /// queue). The built-in implementations keep version 2's cases for now, so that their gates'
    /// measured rates still describe the cases they run.
    public static func reaches(_ impl: any Implementation) -> Bool {
        impl.launch != nil || impl.subclass != nil || impl.setting.owns.contains("queue")
    }
}
