import CALSA
import Session
#if canImport(Glibc)
import Glibc
#endif

/// Notices devices coming and going, on the control thread, a poll at a
/// time (the sessions poll it once a second): sound cards appearing or
/// disappearing (`snd_card_next`, the same list as `/proc/asound/cards`),
/// and, while a route is watched after a loss, whether the chosen PCMs open
/// again — the only test that also covers plugin PCMs, whose "device" is a
/// sound server (JACK) rather than a card.
///
/// It only reports; the session state machine decides what to do (say so,
/// or restart on the chosen route with `--reconnect`).
/// - Realtime: unsafe (opens devices). Control thread only.
public final class DeviceWatcher: DeviceWatching {
    /// The capture (nil: none) and playback PCMs to try while watching; nil when not watching.
    public var watchedRoute: DeviceRoute? {
        didSet { routeWasAvailable = false }
    }
    /// Whether the watched route opened at the last poll: `routeAvailable`
    /// is reported on the change to available only, so a route that stays
    /// available (the session did not restart on it: busy at reopen, or no
    /// `--auto-resume`) is not announced again every second.
    private var routeWasAvailable = false
    private let configuration: ALSAConfiguration
    private let calls: PCMCalls
    private let listCards: () -> [Int: String]
    private var knownCards: [Int: String]

    /// - Parameter listCards: the cards present now (number → name); tests pass their own.
    public init(configuration: ALSAConfiguration = .system, calls: PCMCalls = .live,
                listCards: @escaping () -> [Int: String] = DeviceWatcher.systemCards) {
        self.configuration = configuration
        self.calls = calls
        self.listCards = listCards
        knownCards = listCards()
    }

    /// What changed since the last poll: cards (`card 1: USB Audio`) and the watched route.
    /// - Thread: control
    /// - Realtime: unsafe (opens devices, allocates)
    public func poll() -> [DeviceChange] {
        var changes: [DeviceChange] = []
        let cards = listCards()
        for (index, name) in cards.sorted(by: { $0.key < $1.key }) where knownCards[index] != name {
            changes.append(.appeared("card \(index): \(name)"))
        }
        for (index, name) in knownCards.sorted(by: { $0.key < $1.key }) where cards[index] != name {
            changes.append(.removed("card \(index): \(name)"))
        }
        knownCards = cards
        if let route = watchedRoute {
            let captureBack = route.input.map { opens($0, .capture) } ?? true
            let available = captureBack && opens(route.output, .playback)
            if available && !routeWasAvailable { changes.append(.routeAvailable) }
            routeWasAvailable = available
        }
        return changes
    }

    /// Whether `name` opens for `direction` now (non-blocking, closed at once).
    public func opens(_ name: String, _ direction: StreamDirection) -> Bool {
        ALSALibrary.captureMessages()
        defer { _ = ALSALibrary.takeLastMessage() }
        let tree: ALSAConfigurationTree?
        do {
            tree = try configuration.makeTree()
        } catch {
            return false
        }
        var handle: OpaquePointer?
        let rc = name.withCString { calls.open(&handle, $0, direction.stream, SND_PCM_NONBLOCK, tree?.root) }
        guard rc >= 0, let handle else { return false }
        _ = calls.close(handle)
        return true
    }

    /// The cards libasound sees (`snd_card_next`, `snd_card_get_name`).
    public static func systemCards() -> [Int: String] {
        var cards: [Int: String] = [:]
        for index in DeviceList.cardIndices() {
            var name: UnsafeMutablePointer<CChar>?
            if snd_card_get_name(Int32(index), &name) >= 0, let name {
                cards[index] = String(cString: name)
                free(name)
            } else {
                cards[index] = "card \(index)"
            }
        }
        return cards
    }
}
