import CommandLineInterface
import JACK

extension JACKDriver {
    /// Opens the client for a command: no server, a refused port or
    /// connection becomes the command's one-line error.
    /// - Throws: `CommandLineError.runtime` (exit status 1).
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server)
    static func openForCommand(_ options: Options) throws(CommandLineError) -> JACKDriver {
        do {
            return try JACKDriver(options: options)
        } catch {
            throw .runtime(error.description)
        }
    }
}
