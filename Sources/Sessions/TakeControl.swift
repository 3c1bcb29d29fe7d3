import CommandLineInterface
import Engine
import Foundation
import Recording
import Sequencing

/// The takes of a `busker live` or `busker play` session: `--record` starts
/// one with the audio, Ctrl-R starts and stops them while it runs. The tap is
/// always in the graph (idle it only copies a block), so a take can start at
/// any moment without touching the audio. A take that cannot start, or that a
/// write error stops, is reported on the screen; the audio goes on.
public final class TakeControl {
    public let tap: RecordingTap
    private var request: RecordingRequest
    /// The rate of the audio the takes hold: set again when the graph is rebuilt for a new format.
    public var sampleRate: Int
    /// Write a .mid next to each take (busker play).
    private let recordsMIDI: Bool
    private let midiLatencyFrames: Int
    /// The take in progress: the master and its stems.
    private var take: TakeGroup?
    public var recorder: Recorder? { take?.master }
    /// The engine's silenced-block count at the last poll, and whose output it was.
    private var silencedSeen = 0
    private var silencedFrom = ""
    /// Stems: taps elsewhere in the graph (the dry mic), each recorded next to
    /// the take as `TAKE-NAME.wav`, started and stopped with it.
    public typealias Stem = (name: String, tap: RecordingTap)
    public var stems: [Stem] = []
    public private(set) var reports: [TakeReport] = []
    /// The last thing worth telling about takes (a summary, an error), for the screen.
    public private(set) var message: String?
    /// Errors that stopped takes, for the exit status.
    public private(set) var failures: [String] = []
    private var nextPath: String?
    /// Files the session reads (the song being played): no take file is ever written over one.
    private let protectedPaths: [String]

    /// - Parameters:
    ///   - firstPath: the checked path of the `--record` take, when there is one.
    ///   - protecting: files the session reads (busker play's song).
    public init(tap: RecordingTap, request: RecordingRequest, firstPath: String?, sampleRate: Int,
         recordsMIDI: Bool = false, midiLatencyFrames: Int = 0, protecting: [String] = []) {
        self.tap = tap
        self.request = request
        protectedPaths = protecting
        self.sampleRate = sampleRate
        self.recordsMIDI = recordsMIDI
        self.midiLatencyFrames = midiLatencyFrames
        nextPath = firstPath
    }

    /// A tap for the end of a chain with `channels` output channels.
    /// - Parameter sharing: a tap whose record switch this one shares (stems start and stop with their master).
    public static func makeTap(channels: Int, sampleRate: Double, midiEvents: MIDIEventBuffer? = nil, sharing: RecordingTap? = nil) -> RecordingTap {
        RecordingTap(channelCount: channels, sampleRate: sampleRate, ringSeconds: 4, midiEvents: midiEvents,
                     recordSwitch: sharing?.recordSwitch ?? RecordingSwitch())
    }

    public var isRecording: Bool { take != nil }

    /// What is written next to each take, by replacing its extension: the MIDI file, the stems.
    private var companions: [String] {
        (recordsMIDI ? [".mid"] : []) + stems.map { "-\($0.name)." + request.format.fileExtension }
    }

    /// Starts a take. Later takes get a new dated name next to the first.
    public func start() throws(RecordingError) {
        guard take == nil else { return }
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
            path = try TakeLocation.resolve(explicit: folder.map { $0.isEmpty ? "." : $0 }, format: request.format, force: false,
                                            companions: companions)
        }
        for file in [path] + TakeLocation.companionPaths(of: path, companions) {
            if protectedPaths.contains(where: { TakeLocation.isSameFile(file, $0) }) { throw .isSource(path: file) }
        }
        // Stems first, their switch left alone: the master's start arms them all on one block.
        var stemRecorders: [Recorder] = []
        for stem in stems {
            let stemPath = (path as NSString).deletingPathExtension + "-\(stem.name)." + request.format.fileExtension
            var stemOptions = Recorder.Options()
            stemOptions.startsTake = false
            do {
                stemRecorders.append(try Recorder.start(tap: stem.tap, path: stemPath, format: request.format, sampleRate: sampleRate,
                                                        force: nextPath != nil && request.force, options: stemOptions))
            } catch {
                for stem in stemRecorders { stem.stop() }
                throw error
            }
        }
        var options = Recorder.Options()
        if recordsMIDI { options.midiPath = (path as NSString).deletingPathExtension + ".mid" }
        options.midiLatencyFrames = midiLatencyFrames
        do {
            let master = try Recorder.start(tap: tap, path: path, format: request.format, sampleRate: sampleRate,
                                            force: nextPath != nil && request.force, options: options)
            take = TakeGroup(master: master, stems: stemRecorders)
        } catch {
            for stem in stemRecorders { stem.stop() }
            throw error
        }
        nextPath = nil
        message = nil
    }

    /// Ctrl-R: starts or stops a take; a take that cannot start says why and the audio goes on.
    public func toggle() {
        if take != nil {
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
    /// - Returns: the master's report.
    @discardableResult
    public func stop(audioHasStopped: Bool = false) -> TakeReport? {
        guard let take else { return nil }
        let takeReports = take.stop(audioHasStopped: audioHasStopped)
        self.take = nil
        reports += takeReports
        for report in takeReports {
            if let error = report.error { failures.append(error.description) }
        }
        let master = takeReports[0]
        if let failed = takeReports.first(where: { $0.error != nil }), let error = failed.error {
            message = "REC FAILED: \(error) (\(master.keptDescription))"
        } else {
            message = master.summary
        }
        return master
    }

    /// Follows the driver's xruns and notices a take stopped by a write error:
    /// a failure in the master or in any stem ends the whole take (they share
    /// one switch, so the others stopped taking frames with it) and says so.
    /// - Returns: the error line, once, when a take has just failed.
    /// - Parameter silenced: the engine, whose blocks silenced for a fault go into the take's log.
    public func poll(xruns: Int, silenced engine: RenderEngine? = nil) -> String? {
        guard let take else { return nil }
        for recorder in take.recorders { recorder.followXruns(total: xruns) }
        if let engine {
            let total = engine.silencedBlockCount
            // The names are looked up only when the count moved.
            if total != silencedSeen { silencedFrom = engine.silencedAudio().nodes.map(\.name).joined(separator: ", ") }
            silencedSeen = total
            take.master.followSilencedBlocks(total: total, from: silencedFrom)
        }
        guard let failed = take.failed else { return nil }
        let isStem = failed !== take.master
        let error = failed.status.error ?? "write error"
        let master = stop()
        let kept = master?.keptDescription ?? "0.0 s kept in \(failed.path)"
        return isStem
            ? "recording stopped: the stem \(failed.path) failed: \(error); the take ended with it, \(kept); the audio goes on"
            : "recording stopped: \(error); \(kept); the audio goes on"
    }

    /// `● REC 00:12 · 576000 frames`, or the last message, or nil.
    public var indicator: String? {
        if let recorder {
            let s = recorder.status
            return s.state == .recording ? "\(s.indicator) · \(s.framesRecorded) frames → \(recorder.path)" : s.indicator
        }
        return message
    }
}

extension TakeControl {
    /// Says every take's summary, then the session's last line (`ending`),
    /// and fails (exit 1) when a write error stopped a take.
    public func report(command: String, output: SessionOutput = .standard, ending: () throws -> Void) throws {
        for report in reports { output.line("busker \(command): \(report.summary)") }
        try ending()
        if let failure = failures.first {
            throw SessionError.failed("a take stopped early: \(failure); the audio went on")
        }
    }
}
