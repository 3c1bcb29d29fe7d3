import Session

/// What a session asks of the JACK client beyond the stream.
extension JACKDriver {
    /// A new client with the same options and Busker's latency as published
    /// now, reading `midi_in` into the same port. Reads only what this
    /// client was opened with and an atomic: safe while its close runs elsewhere.
    /// - Throws: `JACKDriverError` (no server, a refused client).
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server)
    public func reopen() throws -> any AudioDriver {
        var again = options
        again.ownLatencyFrames = ownLatencyFrames
        return try JACKDriver(options: again, midiInput: midiIn)
    }

    /// The summary's latency counts Busker's own, as the ports publish it.
    public var publishesOwnLatency: Bool { true }

    /// A process cycle rendered since the last start.
    public var completedPeriodSinceStart: Bool { cyclesRendered > 0 }

    public var midiInput: (any DriverMIDIInput)? { midiIn }

    /// The server, watched for coming back after a loss.
    public func makeDeviceWatcher() -> (any DeviceWatching)? {
        JACKServerWatcher(serverName: options.serverName)
    }

    /// The client, its ports, the latencies and what is patched.
    public var verboseLines: [String] {
        let format = format
        return [
            "JACK client \(clientName) on server \(serverName): \(format.sampleRate) Hz, \(format.periodFrames) frames a cycle (the server's)",
            "ports: \(portNames.joined(separator: ", "))",
            "server latency: capture \(serverCaptureLatency) frames, playback \(serverPlaybackLatency) frames; Busker's own \(ownLatencyFrames)",
            "connections: \(connectionSummary)",
        ]
    }
}
