extension JACKDriver {
    /// How Busker's ports are patched when it starts (`--connect`).
    public enum Connections: Hashable, Sendable {
        /// Inputs to the first physical capture ports (`in_1` to the first,
        /// `in_2` to the second, …), `out_L` and `out_R` to the first two
        /// physical playback ports (both to the one there is, when mono), as
        /// most JACK programs do. Fewer physical ports: fewer connections.
        case auto
        /// Nothing: the patching is the user's (qjackctl, Carla, jack_connect).
        case none
        /// Exactly these connections, in order.
        case ports([Patch])

        /// One connection: one of Busker's ports (`in_1`, `out_L`, `midi_in`,
        /// without the client name) and a port of another client
        /// (`system:capture_2`). Its direction follows from ours: signal
        /// flows from the other port into an input of ours, and from an
        /// output of ours to the other port.
        public struct Patch: Hashable, Sendable {
            public var own: String
            public var other: String

            public init(own: String, other: String) {
                self.own = own
                self.other = other
            }
        }

        /// Parses `--connect`: `auto`, `none`, or `PORT=OTHER,…` (e.g.
        /// `in_1=system:capture_2,out_L=system:playback_1`; a port of ours
        /// may appear more than once).
        /// - Returns: nil when the text is none of these (the caller says why).
        public init?(argument: String) {
            switch argument {
            case "auto": self = .auto
            case "none": self = .none
            default:
                var patches: [Patch] = []
                for item in argument.split(separator: ",", omittingEmptySubsequences: false) {
                    let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(":") else { return nil }
                    patches.append(Patch(own: String(parts[0]), other: String(parts[1])))
                }
                guard !patches.isEmpty else { return nil }
                self = .ports(patches)
            }
        }

        /// What `--help` and option errors say `--connect` takes.
        public static let syntax = "auto | none | PORT=OTHER,… (e.g. in_1=system:capture_2,out_L=system:playback_1)"
    }
}
