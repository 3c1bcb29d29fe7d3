import AudioCore
import Foundation
import Recording

/// The takes of a `busker live` or `busker play` session: `--record` starts
/// one with the audio, Ctrl-R starts and stops them while it runs. The tap is
/// always in the graph (idle it only copies a block), so a take can start at
/// any moment without touching the audio. A take that cannot start, or that a
/// write error stops, is reported on the screen; the audio goes on.
final class TakeControl {
    let tap: RecordingTap
    private var request: RecordingRequest
    /// The rate of the audio the takes hold: set again when the graph is rebuilt for a new format.
    var sampleRate: Int
    /// Write a .mid next to each take (busker play).
    private let recordsMIDI: Bool
    private let midiLatencyFrames: Int
    private(set) var recorder: Recorder?
    /// Stems: taps elsewhere in the graph (the dry mic), each recorded next to
    /// the take as `TAKE-NAME.wav`, started and stopped with it.
    typealias Stem = (name: String, tap: RecordingTap)
    var stems: [Stem] = []
    private var stemRecorders: [Recorder] = []
    private(set) var reports: [TakeReport] = []
    /// The last thing worth telling about takes (a summary, an error), for the screen.
    private(set) var message: String?
    /// Errors that stopped takes, for the exit status.
    private(set) var failures: [String] = []
    private var nextPath: String?
    private var failureShown = false

    /// - Parameter firstPath: the checked path of the `--record` take, when there is one.
    init(tap: RecordingTap, request: RecordingRequest, firstPath: String?, sampleRate: Int,
         recordsMIDI: Bool = false, midiLatencyFrames: Int = 0) {
        self.tap = tap
        self.request = request
        self.sampleRate = sampleRate
        self.recordsMIDI = recordsMIDI
        self.midiLatencyFrames = midiLatencyFrames
        nextPath = firstPath
    }

    /// A tap for the end of a chain with `channels` output channels.
    /// - Parameter sharing: a tap whose record switch this one shares (stems start and stop with their master).
    static func makeTap(channels: Int, sampleRate: Double, midiEvents: MIDIEventBuffer? = nil, sharing: RecordingTap? = nil) -> RecordingTap {
        RecordingTap(channelCount: channels, sampleRate: sampleRate, ringSeconds: 4, midiEvents: midiEvents,
                     recordSwitch: sharing?.recordSwitch ?? RecordingSwitch())
    }

    var isRecording: Bool { recorder != nil }

    /// Starts a take. Later takes get a new dated name next to the first.
    func start() throws(RecordingError) {
        guard recorder == nil else { return }
        let path: String
        if let nextPath {
            path = nextPath
        } else {
            // Later takes: a new dated name in the first take's folder (or the default one).
            var folder: String?
            if let explicit = request.path {
                var isDir: ObjCBool = false
                folder = FileManager.default.fileExists(atPath: explicit, isDirectory: &isDir) && isDir.boolValue
                    ? explicit : (explicit as NSString).deletingLastPathComponent
            }
            path = try TakeLocation.resolve(explicit: folder.map { $0.isEmpty ? "." : $0 }, format: request.format, force: false)
        }
        // Stems first, their switch left alone: the master's start arms them all on one block.
        for stem in stems {
            let stemPath = (path as NSString).deletingPathExtension + "-\(stem.name)." + request.format.fileExtension
            var stemOptions = Recorder.Options()
            stemOptions.startsTake = false
            do {
                stemRecorders.append(try Recorder.start(tap: stem.tap, path: stemPath, format: request.format, sampleRate: sampleRate,
                                                        force: nextPath != nil && request.force, options: stemOptions))
            } catch {
                for stem in stemRecorders { stem.stop() }
                stemRecorders = []
                throw error
            }
        }
        var options = Recorder.Options()
        if recordsMIDI { options.midiPath = (path as NSString).deletingPathExtension + ".mid" }
        options.midiLatencyFrames = midiLatencyFrames
        do {
            recorder = try Recorder.start(tap: tap, path: path, format: request.format, sampleRate: sampleRate,
                                          force: nextPath != nil && request.force, options: options)
        } catch {
            for stem in stemRecorders { stem.stop() }
            stemRecorders = []
            throw error
        }
        nextPath = nil
        failureShown = false
        message = nil
    }

    /// Ctrl-R: starts or stops a take; a take that cannot start says why and the audio goes on.
    func toggle() {
        if recorder != nil {
            stop()
        } else {
            do {
                try start()
            } catch {
                message = "cannot record: \(error)"
            }
        }
    }

    /// Ends the current take, if any.
    @discardableResult
    func stop(audioHasStopped: Bool = false) -> TakeReport? {
        guard let recorder else { return nil }
        let report = recorder.stop(audioHasStopped: audioHasStopped)
        self.recorder = nil
        reports.append(report)
        for stem in stemRecorders {
            let stemReport = stem.stop(audioHasStopped: audioHasStopped)
            reports.append(stemReport)
            if let error = stemReport.error { failures.append(error.description) }
        }
        stemRecorders = []
        if let error = report.error {
            failures.append(error.description)
            message = "REC FAILED: \(error) (\(String(format: "%.1f", report.seconds)) s kept)"
        } else {
            message = report.summary
        }
        return report
    }

    /// Follows the driver's xruns and notices a take stopped by a write error.
    /// - Returns: the error line, once, when a take has just failed.
    func poll(xruns: Int) -> String? {
        guard let recorder else { return nil }
        recorder.followXruns(total: xruns)
        for stem in stemRecorders { stem.followXruns(total: xruns) }
        if let failedStem = stemRecorders.first(where: { $0.hasFailed }), !failureShown {
            failureShown = true
            return "recording the stem \(failedStem.path) stopped: \(failedStem.status.error ?? "write error"); the audio goes on"
        }
        if recorder.hasFailed && !failureShown {
            failureShown = true
            let status = recorder.status
            return "recording stopped: \(status.error ?? "write error"); \(String(format: "%.1f", Double(status.framesWritten) / Double(sampleRate))) s kept in \(recorder.path); the audio goes on"
        }
        return nil
    }

    /// `● REC 00:12 · 576000 frames`, or the last message, or nil.
    var indicator: String? {
        if let recorder {
            let s = recorder.status
            return s.state == .recording ? "\(s.indicator) · \(s.framesRecorded) frames → \(recorder.path)" : s.indicator
        }
        return message
    }
}
