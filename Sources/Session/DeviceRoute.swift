/// The devices the user chose on the command line: where the sound comes
/// from (nil for playback only, as `busker play`) and where it goes.
///
/// The state machine keeps the route it was made with and never changes
/// it: every effect that starts or resumes audio carries that route, and the
/// session refuses any other. This is what keeps a live mic from coming back
/// through a speaker the user did not pick (the classic howl after an
/// unplug, when an app "helpfully" falls back to the default output).
public struct DeviceRoute: Hashable, Sendable, CustomStringConvertible {
    /// Capture PCM name; nil when nothing is captured.
    public let input: String?
    /// Playback PCM name.
    public let output: String

    public init(input: String?, output: String) {
        self.input = input
        self.output = output
    }

    /// Whether `device` (a PCM name) is one of this route's ends.
    public func involves(_ device: String) -> Bool {
        device == output || device == input
    }

    public var description: String {
        guard let input else { return output }
        return input == output ? input : "\(input) → \(output)"
    }
}
