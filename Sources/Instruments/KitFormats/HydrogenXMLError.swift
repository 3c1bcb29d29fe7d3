/// Why a `drumkit.xml` could not be read as XML: where, and what.
public struct HydrogenXMLError: Error, Equatable, Sendable {
    public var line: Int
    public var reason: String
}
