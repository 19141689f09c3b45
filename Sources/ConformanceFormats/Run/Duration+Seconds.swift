extension Duration {
    /// The duration in seconds, for reports and the bench.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
