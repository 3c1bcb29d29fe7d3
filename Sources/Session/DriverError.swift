/// An error a driver throws when it cannot open or start, as the state
/// machine needs to know it (busy, missing, other) and as the user reads it
/// (its description: one line naming the device and what to try).
public protocol DriverError: Error, CustomStringConvertible {
    var startFailure: StartFailure { get }
}
