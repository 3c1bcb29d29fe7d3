/// Something in a `drumkit.xml` that Busker could not use and went past:
/// a value it replaced with the default, or a layer it skipped.
public struct HydrogenKitIssue: Equatable, Sendable {
    /// The instrument it belongs to (index into `HydrogenKit.instruments`).
    public var instrument: Int
    /// The line of `drumkit.xml`.
    public var line: Int
    /// What was wrong, e.g. "<min> 'abc' is not a number".
    public var reason: String
    /// What Busker did instead, e.g. "used 0" or "layer skipped".
    public var action: String
}
