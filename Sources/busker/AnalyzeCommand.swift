import CommandLineInterface
import Foundation
import Loudness
import Sessions

/// `busker analyze FILE`: the EBU R 128 loudness of any sound file, as take summaries give it.
enum AnalyzeCommand {
    static let help = """
    usage: busker analyze FILE [FILE …]

    Prints each file's loudness as EBU R 128 measures it (ITU-R BS.1770,
    through libebur128), the figures a take's summary gives: integrated
    loudness in LUFS (-23 is EBU R 128's target for broadcast; streaming
    services play at about -14), loudness range in LU, true peak in dBTP
    (keep it under -1 for lossy encoding) and the sample peak in dBFS.
    Reads anything libsndfile reads (WAV, FLAC, Ogg, AIFF, …); channels are
    weighted by position as BS.1770 says (1 mono, 2 stereo, 5 or 6 surround).

      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        guard !args.positionals.isEmpty else { throw CommandLineError.usage("analyze needs a sound file: busker analyze FILE") }
        for path in args.positionals {
            let measured: (report: LoudnessReport, sampleRate: Int, channelCount: Int)
            do {
                measured = try LoudnessReport.measure(path: path)
            } catch {
                throw CommandLineError.runtime(error.description)
            }
            let r = measured.report
            print("busker analyze: \(path): \(String(format: "%.1f", r.seconds)) s at \(measured.sampleRate) Hz, "
                  + "\(measured.channelCount) ch; \(r.description), sample peak \(LoudnessReport.format(r.samplePeakDBFS)) dBFS")
        }
    }
}
