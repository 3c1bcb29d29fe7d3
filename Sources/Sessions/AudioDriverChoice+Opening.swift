import ALSA
import CommandLineInterface
import JACK
import OfflineDrivers
import Session

/// A driver as `AudioDriverChoice.open` made it: a device driver, which a
/// session runner drives, or an offline driver, which runs to its end by
/// itself (`AudioSession.runOffline`).
enum OpenedDriver {
    case device(any AudioDriver)
    case file(FileRenderDriver)
    case song(SongRenderDriver)

    /// The driver as every session sees it.
    var driver: any AudioDriver {
        switch self {
        case let .device(driver): driver
        case let .file(driver): driver
        case let .song(driver): driver
        }
    }
}

extension AudioDriverChoice {
    /// Opens the driver this choice names, for sources that read
    /// `captureChannels` and, with `midiInput`, the driver's own MIDI input
    /// (JACK's `midi_in`). Every device session opens its driver here.
    /// - Parameter captureOnly: nothing plays back but a monitor: a capture
    ///   device that will not run at the rate or period asked for is said to
    ///   be so alone, not to disagree with a playback device the user never named.
    /// - Parameter directOutputs: JACK's output ports after `out_L`/`out_R` (`--direct-outs`).
    /// - Throws: `SessionError.failed`: the driver's one line (an unknown
    ///   PCM, a busy device, a refused format, no server, an unreadable input file).
    /// - Thread: control
    /// - Realtime: unsafe (opens devices or files)
    func open(captureChannels: Int, midiInput: Bool, captureOnly: Bool, directOutputs: [String] = []) throws(SessionError) -> OpenedDriver {
        switch self {
        case var .alsa(options):
            // Up to two capture channels the device's own choice stands.
            if captureChannels > 2 && options.captureChannels == nil { options.captureChannels = captureChannels }
            return .device(try Self.openALSA(options, captureOnly: captureOnly))
        case var .jack(options):
            options.inputChannels = max(options.inputChannels, captureChannels)
            options.midiInput = midiInput
            options.directOutputs = directOutputs
            do {
                return .device(try JACKDriver(options: options))
            } catch {
                throw .failed(error.description)
            }
        case let .file(options, outputChannels):
            do {
                let driver = try FileRenderDriver(options: options)
                driver.outputChannelCount = outputChannels
                return .file(driver)
            } catch {
                throw .failed(error.description)
            }
        case let .song(options):
            return .song(SongRenderDriver(options: options))
        }
    }

    /// Whether the choice runs on files, as fast as the machine allows.
    var isOffline: Bool {
        switch self {
        case .alsa, .jack: false
        case .file, .song: true
        }
    }

    private static func openALSA(_ options: DuplexDriver.Options, captureOnly: Bool) throws(SessionError) -> DuplexDriver {
        do {
            return try DuplexDriver(options: options)
        } catch let .duplexMismatch(capture, _, what, captureValue, asked) where captureOnly && options.playbackPCM == "null" {
            if what == "sample rate" {
                throw .failed("capture device '\(capture)' runs at \(captureValue) Hz, not the \(asked) Hz asked for; record at -r \(captureValue)")
            }
            throw .failed("capture device '\(capture)' gives a \(what) of \(captureValue), not the \(asked) asked for; "
                           + (what == "period size" ? "try --period \(captureValue)" : "try its plughw: or plug: name"))
        } catch {
            throw .failed(error.description)
        }
    }
}
