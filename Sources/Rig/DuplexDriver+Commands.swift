import ALSA
import CommandLineInterface

extension DuplexDriver {
    /// Opens the devices for a command: an ALSA error (an unknown PCM, a busy
    /// device, a refused format) becomes the command's one-line error.
    /// - Throws: `CommandLineError.runtime` (exit status 1).
    /// - Thread: control
    /// - Realtime: unsafe (opens devices)
    static func openForCommand(_ options: Options) throws(CommandLineError) -> DuplexDriver {
        do {
            return try DuplexDriver(options: options)
        } catch {
            throw .runtime(error.description)
        }
    }
}
