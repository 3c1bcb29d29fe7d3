import AudioFiles
import Chains
import CommandLineInterface
import Engine
import Foundation
import OfflineDrivers
import Sessions
import Session
import TerminalUI

/// A live session for the session tests: the real chain for `arguments` on
/// an offline file driver (10 ms of stereo silence in `folder`) that is never
/// started, so the controls are parameters the tests read as the audio
/// thread would.
func makeOfflineLiveSession(_ arguments: [String], in folder: URL) throws -> LiveSession {
    let input = folder.appendingPathComponent("in.wav").path
    let writer = try SoundFileWriter(path: input, sampleRate: 48000, channelCount: 2, sampleFormat: .f32)
    try writer.write(interleaved: [Float](repeating: 0, count: 2 * 480))
    try writer.close()
    let driver = try FileRenderDriver(options: FileRenderDriver.Options(inputPath: input, outputPath: folder.appendingPathComponent("out.wav").path))
    let chain = try LiveChain(inputChannelCount: 2, settings: try LiveSettings(commandLine: arguments))
    let runner = SessionRunner(command: "live", driver: driver, engine: RenderEngine(), policy: SessionPolicy(headless: true),
                               watcher: nil, takeSignals: { [] }, suspendProcess: {}, reopen: { driver })
    return LiveSession(chain: chain, runner: runner, useTUI: false)
}
