// swift-tools-version:6.0
import PackageDescription

/// Busker: a real-time audio engine and terminal app for Linux.
///
/// Layout (see README, "Architecture"):
/// - C system libraries: CALSA, CFluidSynth, CSndFile, CSampleRate (pkg-config, Debian packages).
/// - CRealtimeSupport: a few static inline helpers Swift cannot express (FTZ/DAZ).
/// - AudioCore: buffers, lock-free queues, the render graph, the DSP nodes and the
///   MIDI scheduling that lands events at their frame. No library C deps.
/// - ALSAIO: the ALSA PCM duplex driver, device listing, and MIDI input (sequencer, raw MIDI).
/// - Instruments: the FluidSynth sampler, the drum kit on a voice pool, General MIDI names.
/// - MIDI: the message model, the byte-stream parser and the Standard MIDI File reader.
/// - FileIO: audio files through libsndfile, resampling through libsamplerate, the offline file driver.
/// - Recording: the recording tap, the writer thread and crash-safe files (libsndfile).
/// - SpeechProcessing: speexdsp's noise suppression, gain control and echo cancellation as nodes.
/// - Session: the device-event state machine, a pure transition function the drivers report to.
/// - TerminalUI: what the screens draw (the piano keyboard), kept apart so tests can check it.
/// - busker: the command-line executable.
let package = Package(
    name: "Busker",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "busker", targets: ["busker"]),
    ],
    targets: [
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CFluidSynth", pkgConfig: "fluidsynth", providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .target(name: "CRealtimeSupport"),
        .target(name: "AudioCore", dependencies: ["CRealtimeSupport", "MIDI"]),
        .target(name: "FileIO", dependencies: ["AudioCore", "CSndFile", "CSampleRate"]),
        .target(name: "MIDI"),
        .target(name: "ALSAIO", dependencies: ["AudioCore", "MIDI", "CALSA", "CRealtimeSupport", "Session"]),
        .target(name: "Instruments", dependencies: ["AudioCore", "MIDI", "FileIO", "CFluidSynth"]),
        .target(name: "TerminalUI", dependencies: ["MIDI"]),
        .target(name: "Session"),
        .target(name: "Recording", dependencies: ["AudioCore", "FileIO", "MIDI", "CSndFile"]),
        .target(name: "SpeechProcessing", dependencies: ["AudioCore", "CSpeexDSP"]),
        .executableTarget(name: "busker", dependencies: ["AudioCore", "MIDI", "FileIO", "ALSAIO", "Instruments", "TerminalUI",
                                                        "Recording", "SpeechProcessing", "Session"]),
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .target(name: "CHostStallProbe", path: "Tests/CHostStallProbe"),
        .target(name: "RenderTestSupport", dependencies: ["AudioCore", "CAllocationCounter", "CHostStallProbe"], path: "Tests/RenderTestSupport"),
        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore", "MIDI", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "FileIOTests", dependencies: ["FileIO", "AudioCore"]),
        .testTarget(name: "MIDITests", dependencies: ["MIDI", "CAllocationCounter"]),
        .testTarget(name: "ALSAIOTests", dependencies: ["ALSAIO", "AudioCore", "MIDI", "FileIO", "Instruments", "CAllocationCounter", "CHostStallProbe", "RenderTestSupport", "Session"]),
        .testTarget(name: "InstrumentsTests", dependencies: ["Instruments", "AudioCore", "MIDI", "FileIO", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "MIDI"]),
        .testTarget(name: "SessionTests", dependencies: ["Session"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "AudioCore", "FileIO", "MIDI", "CSndFile", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "SpeechProcessingTests", dependencies: ["SpeechProcessing", "AudioCore", "FileIO", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "BuskerCLITests", dependencies: ["FileIO", "AudioCore", "MIDI", "RenderTestSupport"]),
    ]
)
