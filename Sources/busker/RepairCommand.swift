import CommandLineInterface
import Foundation
import Recording
import Sessions

/// `busker repair FILE.wav`: fixes the header of a WAV cut short (a crash, a
/// power cut, a full disk) from the file's size.
enum RepairCommand {
    static let help = """
    usage: busker repair FILE.wav [FILE.wav …]

    Sets a WAV's RIFF and data sizes (RF64's ds64 too) from the file's real
    size, so every frame that reached the disk plays again. A partial last
    frame is cut off; a RIFF file whose data passed 4 GiB becomes RF64 when
    it has room for the ds64 chunk (Busker's takes do). A complete WAV (its
    data size right, chunks such as LIST after the data) is left as it is.

      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        guard !args.positionals.isEmpty else { throw CommandLineError.usage("repair needs a WAV file: busker repair FILE.wav") }
        for path in args.positionals {
            let result: WAVRepair.Result
            do {
                result = try WAVRepair.repair(path: path)
            } catch {
                throw CommandLineError.runtime(error.description)
            }
            let seconds = Double(result.framesAfter) / Double(max(1, result.sampleRate))
            var line = "busker repair: \(path): \(result.framesAfter) frames (\(String(format: "%.2f", seconds)) s at \(result.sampleRate) Hz, \(result.channelCount) ch)"
            if result.wasLeftAlone {
                line += ", the header was right: left as it was"
            } else {
                line += result.framesBefore == result.framesAfter ? ", the header was right" : ", the header said \(result.framesBefore)"
            }
            if result.bytesCut > 0 { line += "; cut \(result.bytesCut) bytes of a partial frame" }
            if result.isRF64 { line += "; RF64" }
            print(line)
        }
    }
}
