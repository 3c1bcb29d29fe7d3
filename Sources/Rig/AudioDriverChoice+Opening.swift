import ALSA
import JACK
import Session

extension AudioDriverChoice {
    /// Opens the driver this choice names, for sources that read
    /// `captureChannels` and, with `midiInput`, the driver's own MIDI input
    /// (JACK's `midi_in`). Every device session opens its driver here.
    /// - Parameter captureOnly: nothing plays back but a monitor: a capture
    ///   device that will not run at the rate or period asked for is said to
    ///   be so alone, not to disagree with a playback device the user never named.
    /// - Throws: `CommandLineError.runtime`: the driver's one line (an unknown
    ///   PCM, a busy device, a refused format, no server).
    /// - Thread: control
    /// - Realtime: unsafe (opens devices)
    func open(captureChannels: Int, midiInput: Bool, captureOnly: Bool) throws(CommandLineError) -> any AudioDriver {
        switch self {
        case var .alsa(options):
            // Up to two capture channels the device's own choice stands.
            if captureChannels > 2 && options.captureChannels == nil { options.captureChannels = captureChannels }
            return try Self.openALSA(options, captureOnly: captureOnly)
        case var .jack(options):
            options.inputChannels = max(options.inputChannels, captureChannels)
            options.midiInput = midiInput
            do {
                return try JACKDriver(options: options)
            } catch {
                throw .runtime(error.description)
            }
        }
    }

    private static func openALSA(_ options: DuplexDriver.Options, captureOnly: Bool) throws(CommandLineError) -> DuplexDriver {
        do {
            return try DuplexDriver(options: options)
        } catch let .duplexMismatch(capture, _, what, captureValue, asked) where captureOnly && options.playbackPCM == "null" {
            if what == "sample rate" {
                throw .runtime("capture device '\(capture)' runs at \(captureValue) Hz, not the \(asked) Hz asked for; record at -r \(captureValue)")
            }
            throw .runtime("capture device '\(capture)' gives a \(what) of \(captureValue), not the \(asked) asked for; "
                           + (what == "period size" ? "try --period \(captureValue)" : "try its plughw: or plug: name"))
        } catch {
            throw .runtime(error.description)
        }
    }
}
