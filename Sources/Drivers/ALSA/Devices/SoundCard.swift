import Session
/// A sound card as the kernel reports it (`snd_ctl_card_info`), with its PCM
/// devices: what `aplay -l` and `arecord -l` print.
public struct SoundCard: Sendable, Hashable {
    /// One PCM device of a card, openable as `hw:<card>,<device>`.
    public struct PCMDevice: Sendable, Hashable {
        public var device: Int
        public var id: String
        public var name: String
        /// Capture, playback or both.
        public var directions: Set<StreamDirection>
        public var subdeviceCount: Int

        public init(device: Int, id: String, name: String, directions: Set<StreamDirection>, subdeviceCount: Int) {
            self.device = device
            self.id = id
            self.name = name
            self.directions = directions
            self.subdeviceCount = subdeviceCount
        }
    }

    public var index: Int
    /// The short id usable in names: `hw:CARD=<id>`.
    public var id: String
    public var name: String
    public var longName: String
    public var pcmDevices: [PCMDevice]

    public init(index: Int, id: String, name: String, longName: String, pcmDevices: [PCMDevice]) {
        self.index = index
        self.id = id
        self.name = name
        self.longName = longName
        self.pcmDevices = pcmDevices
    }
}
