import Session
/// A PCM name ALSA advertises (`snd_device_name_hint`): what `aplay -L` prints.
public struct PCMNameHint: Sendable, Hashable {
    /// The name to pass to `--input`, `--output` or `--device` (`default`, `hw:CARD=PCH,DEV=0`, …).
    public var name: String
    /// ALSA's description, possibly several lines ("HDA Intel PCH, ALC887 Analog\nFront speakers").
    public var description: String
    /// Capture, playback or both (ALSA's IOID hint; absent means both).
    public var directions: Set<StreamDirection>

    public init(name: String, description: String, directions: Set<StreamDirection>) {
        self.name = name
        self.description = description
        self.directions = directions
    }

    /// Whether this is the PCM programs use when given no name.
    public var isDefault: Bool { name == "default" }
}
