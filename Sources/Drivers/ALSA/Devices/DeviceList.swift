import CALSA
import Session
#if canImport(Glibc)
import Glibc
#endif

/// The cards and PCM names of this machine, for `busker devices`: the data,
/// and a text rendering that reads like `aplay -L` followed by `arecord -l`/`aplay -l`.
///
/// PCM names come from the system configuration (so `ALSA_CONFIG_PATH`
/// counts); ALSA lists only PCMs whose definition has a `hint` section,
/// which Tools/virtual-soundcard's definitions have.
///
/// - Realtime: unsafe (allocates, opens devices). Control thread only.
public struct DeviceList: Sendable, Hashable, CustomStringConvertible {
    public var cards: [SoundCard]
    public var pcms: [PCMNameHint]
    /// The card the `default` PCM plays through, when it goes to a card
    /// (nil without cards, or when `default` is a sound server or a JACK PCM).
    public var defaultCardIndex: Int?

    public init(cards: [SoundCard], pcms: [PCMNameHint], defaultCardIndex: Int?) {
        self.cards = cards
        self.pcms = pcms
        self.defaultCardIndex = defaultCardIndex
    }

    /// Reads the current cards and PCM names.
    public static func current() -> DeviceList {
        ALSALibrary.captureMessages()
        let list = DeviceList(cards: cards(), pcms: pcmNameHints(), defaultCardIndex: defaultPlaybackCard())
        _ = ALSALibrary.takeLastMessage()
        return list
    }

    /// Card numbers in order (`snd_card_next`); empty without any sound card.
    public static func cardIndices() -> [Int] {
        var indices: [Int] = []
        var card: Int32 = -1
        while snd_card_next(&card) >= 0 && card >= 0 { indices.append(Int(card)) }
        return indices
    }

    /// Every card with its PCM devices.
    public static func cards() -> [SoundCard] {
        cardIndices().compactMap(card(at:))
    }

    private static func card(at index: Int) -> SoundCard? {
        var ctlOptional: OpaquePointer?
        guard snd_ctl_open(&ctlOptional, "hw:\(index)", 0) >= 0, let ctl = ctlOptional else { return nil }
        defer { snd_ctl_close(ctl) }
        var infoOptional: OpaquePointer?
        guard snd_ctl_card_info_malloc(&infoOptional) >= 0, let info = infoOptional else { return nil }
        defer { snd_ctl_card_info_free(info) }
        guard snd_ctl_card_info(ctl, info) >= 0 else { return nil }

        var pcmInfoOptional: OpaquePointer?
        guard snd_pcm_info_malloc(&pcmInfoOptional) >= 0, let pcmInfo = pcmInfoOptional else { return nil }
        defer { snd_pcm_info_free(pcmInfo) }
        var devices: [SoundCard.PCMDevice] = []
        var device: Int32 = -1
        while snd_ctl_pcm_next_device(ctl, &device) >= 0 && device >= 0 {
            var entry = SoundCard.PCMDevice(device: Int(device), id: "", name: "", directions: [], subdeviceCount: 0)
            for direction in StreamDirection.allCases {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, direction.stream)
                guard snd_ctl_pcm_info(ctl, pcmInfo) >= 0 else { continue }
                entry.directions.insert(direction)
                entry.id = String(cString: snd_pcm_info_get_id(pcmInfo))
                entry.name = String(cString: snd_pcm_info_get_name(pcmInfo))
                entry.subdeviceCount = max(entry.subdeviceCount, Int(snd_pcm_info_get_subdevices_count(pcmInfo)))
            }
            if !entry.directions.isEmpty { devices.append(entry) }
        }
        return SoundCard(index: index,
                         id: String(cString: snd_ctl_card_info_get_id(info)),
                         name: String(cString: snd_ctl_card_info_get_name(info)),
                         longName: String(cString: snd_ctl_card_info_get_longname(info)),
                         pcmDevices: devices)
    }

    /// PCM names with descriptions and directions (`snd_device_name_hint`).
    public static func pcmNameHints() -> [PCMNameHint] {
        var hintsOptional: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hintsOptional) >= 0, let hints = hintsOptional else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var result: [PCMNameHint] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            guard let name = takeHint(hint, "NAME") else { continue }
            let description = takeHint(hint, "DESC") ?? ""
            let directions: Set<StreamDirection>
            switch takeHint(hint, "IOID") {
            case "Input": directions = [.capture]
            case "Output": directions = [.playback]
            default: directions = [.capture, .playback]
            }
            result.append(PCMNameHint(name: name, description: description, directions: directions))
        }
        return result
    }

    /// A hint field; libasound mallocs it, so it is freed here.
    private static func takeHint(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }

    /// Opens `default` for playback just long enough to ask which card it
    /// reaches. Non-blocking, so a busy or absent device answers at once.
    private static func defaultPlaybackCard() -> Int? {
        if cardIndices().isEmpty { return nil }
        var pcmOptional: OpaquePointer?
        guard snd_pcm_open(&pcmOptional, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) >= 0,
              let pcm = pcmOptional else { return nil }
        defer { snd_pcm_close(pcm) }
        var infoOptional: OpaquePointer?
        guard snd_pcm_info_malloc(&infoOptional) >= 0, let info = infoOptional else { return nil }
        defer { snd_pcm_info_free(info) }
        guard snd_pcm_info(pcm, info) >= 0 else { return nil }
        let card = Int(snd_pcm_info_get_card(info))
        return card >= 0 ? card : nil
    }

    // MARK: Text

    /// Every PCM name to offer, one each: the advertised ones (`default` first
    /// when advertised or not), then `hw:` and `plughw:` of each card's devices.
    /// For shell completion (`busker devices --names`).
    public var pcmNames: [String] {
        var names = ["default"]
        for pcm in pcms where !names.contains(pcm.name) { names.append(pcm.name) }
        for card in cards {
            for device in card.pcmDevices {
                for name in ["hw:\(card.index),\(device.device)", "plughw:\(card.index),\(device.device)"] where !names.contains(name) {
                    names.append(name)
                }
            }
        }
        return names
    }

    /// Like `aplay -L`, then like `arecord -l` and `aplay -l` together.
    public var description: String {
        var lines: [String] = ["PCM names (use with --input, --output or --device):"]
        if pcms.isEmpty { lines.append("  (none advertised)") }
        for pcm in pcms {
            let sides = pcm.directions.count == 2 ? "capture, playback"
                : pcm.directions.contains(.capture) ? "capture only" : "playback only"
            lines.append("\(pcm.name)  [\(sides)]\(pcm.isDefault ? "  ← default" : "")")
            for line in pcm.description.split(separator: "\n", omittingEmptySubsequences: true) {
                lines.append("    \(line)")
            }
        }
        lines.append("")
        lines.append("Cards:")
        if cards.isEmpty {
            lines.append("  no sound card found (no /dev/snd); without hardware, start Tools/virtual-soundcard")
        }
        for card in cards {
            let mark = card.index == defaultCardIndex ? "  ← default" : ""
            lines.append("card \(card.index): \(card.id) [\(card.name)]\(mark)  \(card.longName)")
            for device in card.pcmDevices {
                let sides = StreamDirection.allCases.filter { device.directions.contains($0) }.map(\.description).joined(separator: ", ")
                lines.append("  device \(device.device): \(device.id) [\(device.name)]  (\(sides); subdevices: \(device.subdeviceCount))  → hw:\(card.index),\(device.device)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
