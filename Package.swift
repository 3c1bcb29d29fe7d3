// swift-tools-version:6.0
import PackageDescription

/// Busker: a real-time audio engine and terminal app for Linux.
///
/// The targets, their dependencies and the threads are drawn in
/// docs/architecture.md. In short, from the bottom up:
/// - C system libraries: CALSA, CFluidSynth, CSndFile, CSampleRate, CSpeexDSP (tests only), CJACK, CEBUR128, CLiblo
///   (pkg-config, Debian -dev packages); CRealtimeSupport: static inline
///   helpers Swift cannot express (flush-to-zero, thread names, the clock).
/// - Engine: buffers, nodes, graph → plan → engine, handover, SPSC queue and
///   ring, parameters, real-time threads. Knows nothing of MIDI or devices.
/// - DSP: filters, gain, mixer, limiter, meter, reverb, gate, compressor, FFT, decimator; in folders
///   Filters, Dynamics, Effects, Mixing, Metering, Analysis, Math.
/// - FeedbackGuard: the howl detector, the notch bank and the guard node.
/// - MIDI: pure: messages, the byte-stream parser, Standard MIDI Files.
/// - Sequencing: MIDI input ports, the scheduler, the file player, note activity.
/// - AudioFiles: audio files (libsndfile), resampling (libsamplerate); no drivers, no Session.
/// - Instruments: the FluidSynth sampler (Sampler/, SoundFonts/) and the drum kit (Kits/, KitFormats/).
/// - SpeechProcessing: the voice's noise suppression and gain control as a node.
/// - Loudness: EBU R 128 loudness (libebur128) off the audio thread: the meter, the live tap, files.
/// - Recording: the tap, the writer thread, crash-safe takes, repair.
/// - Session: the driver protocol, the device-event state machine and the runner.
/// - ALSA (Sources/Drivers/ALSA): the PCM drivers (PCM/), device listing and watching (Devices/),
///   sequencer and raw MIDI input (Sequencer/, RawMIDI/).
/// - JACK (Sources/Drivers/JACK): Busker as a JACK client (jackd, or PipeWire's JACK API): the driver
///   and JACK MIDI in.
/// - OfflineDrivers (Sources/Drivers/Offline): the file drivers: a file in and out, a song to a file.
/// - Chains: graphs built from a description: the live chain and its strips, the instruments'
///   chain, their settings; typed errors (`ChainError`), no command line.
/// - Control: what moves parameters: the MIDI control map and learn, OSC (the wire format, the
///   server, the responder), presets, the live controller; `TerminalText`, for the outside text they show.
/// - CommandLineInterface: the argument scanner, option declarations, help, man page and completion;
///   the options each part reads (`*+Arguments`), `CommandLineError` and the command's output lines.
/// - Sessions: `AudioSession`, the one place a driver is opened and a runner built, from a
///   description of its sources; takes, the MIDI sources, the record workflow.
/// - TerminalUI: the terminal, every screen and its keys; the screen sessions poll Control's LiveController.
/// - Benchmarks: the feedback simulator and the benchmarks `busker bench` runs.
/// - busker: argument parsing and dispatch.
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
        .systemLibrary(name: "CJACK", pkgConfig: "jack", providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        .target(name: "CRealtimeSupport"),
        .target(name: "Engine", dependencies: ["CRealtimeSupport"]),
        .target(name: "DSP", dependencies: ["Engine"]),
        .target(name: "FeedbackGuard", dependencies: ["Engine", "DSP"]),
        .target(name: "MIDI"),
        .target(name: "Sequencing", dependencies: ["Engine", "MIDI", "CRealtimeSupport"]),
        .target(name: "AudioFiles", dependencies: ["Engine", "CSndFile", "CSampleRate"]),
        .target(name: "Instruments", dependencies: ["Engine", "DSP", "Sequencing", "MIDI", "AudioFiles", "CFluidSynth"]),
        .target(name: "SpeechProcessing", dependencies: ["Engine", "DSP"]),
        .target(name: "Loudness", dependencies: ["Engine", "AudioFiles", "CEBUR128"]),
        .target(name: "Recording", dependencies: ["Engine", "Sequencing", "AudioFiles", "MIDI", "CSndFile", "Loudness"]),
        .target(name: "Session", dependencies: ["Engine", "Sequencing"]),
        .target(name: "ALSA", dependencies: ["Engine", "Sequencing", "MIDI", "Session", "CALSA", "CRealtimeSupport"],
                path: "Sources/Drivers/ALSA"),
        .target(name: "JACK", dependencies: ["Engine", "Sequencing", "MIDI", "Session", "CJACK", "CRealtimeSupport"],
                path: "Sources/Drivers/JACK"),
        .target(name: "OfflineDrivers", dependencies: ["Engine", "Session", "AudioFiles"], path: "Sources/Drivers/Offline"),
        .target(name: "Chains", dependencies: ["Engine", "DSP", "FeedbackGuard", "Sequencing", "Instruments", "SpeechProcessing",
                                               "Loudness", "AudioFiles"]),
        .target(name: "Control", dependencies: ["Chains", "Engine", "DSP", "MIDI", "Sequencing", "CLiblo"]),
        .target(name: "CommandLineInterface", dependencies: ["Chains", "Control", "Engine", "DSP", "Instruments", "AudioFiles",
                                                             "Recording", "Session"]),
        .target(name: "Sessions", dependencies: ["Chains", "Control", "CommandLineInterface", "Engine", "DSP", "FeedbackGuard", "MIDI",
                                                 "Sequencing", "AudioFiles", "Instruments", "SpeechProcessing", "Recording", "Session",
                                                 "ALSA", "JACK", "OfflineDrivers", "Loudness"]),
        .target(name: "TerminalUI", dependencies: ["Engine", "DSP", "FeedbackGuard", "MIDI", "Sequencing", "Instruments",
                                                   "Session", "Chains", "Control", "CommandLineInterface", "Sessions", "Loudness"]),
        .target(name: "Benchmarks", dependencies: ["Engine", "DSP", "MIDI", "Sequencing", "Instruments", "FeedbackGuard", "AudioFiles",
                                                   "OfflineDrivers", "Chains", "CommandLineInterface", "Sessions"]),
        .executableTarget(name: "busker", dependencies: ["AudioFiles", "OfflineDrivers", "Recording", "Session", "ALSA", "Chains",
                                                        "Control", "CommandLineInterface", "Sessions", "TerminalUI", "Benchmarks",
                                                        "Loudness"]),

        // Test support: the allocation counter (hooks malloc), the host stall probe, and fixtures.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .target(name: "CHostStallProbe", path: "Tests/CHostStallProbe"),
        .target(name: "RenderTestSupport", dependencies: ["Engine", "CAllocationCounter", "CHostStallProbe"],
                path: "Tests/RenderTestSupport"),
        .target(name: "AudioFileTestSupport", dependencies: ["AudioFiles"], path: "Tests/AudioFileTestSupport"),
        .target(name: "InstrumentTestSupport", dependencies: ["Engine", "Instruments", "MIDI", "Sequencing"],
                path: "Tests/InstrumentTestSupport"),

        .testTarget(name: "EngineTests", dependencies: ["Engine", "DSP", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "DSPTests", dependencies: ["Engine", "DSP", "CRealtimeSupport", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "FeedbackGuardTests", dependencies: ["FeedbackGuard", "Engine", "DSP", "AudioFiles", "Instruments", "MIDI",
                                                               "Sequencing", "Chains", "Sessions", "Benchmarks", "CAllocationCounter",
                                                               "RenderTestSupport", "InstrumentTestSupport"]),
        .testTarget(name: "MIDITests", dependencies: ["MIDI", "CAllocationCounter"]),
        .testTarget(name: "SequencingTests", dependencies: ["Sequencing", "Engine", "DSP", "MIDI", "CAllocationCounter",
                                                            "RenderTestSupport"]),
        .testTarget(name: "AudioFilesTests", dependencies: ["AudioFiles", "Engine", "AudioFileTestSupport", "CSndFile"]),
        .testTarget(name: "OfflineDriversTests", dependencies: ["OfflineDrivers", "AudioFiles", "Engine", "AudioFileTestSupport"]),
        .testTarget(name: "InstrumentsTests", dependencies: ["Instruments", "Engine", "DSP", "Sequencing", "MIDI", "AudioFiles",
                                                             "CAllocationCounter", "RenderTestSupport", "InstrumentTestSupport",
                                                             "CFluidSynth"]),
        .testTarget(name: "SpeechProcessingTests", dependencies: ["SpeechProcessing", "Engine", "DSP", "AudioFiles", "Chains",
                                                                  "Sessions", "CSpeexDSP", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "LoudnessTests", dependencies: ["Loudness", "Recording", "Chains", "CommandLineInterface", "Sessions",
                                                          "Engine", "DSP", "AudioFiles", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "Engine", "Sequencing", "AudioFiles", "OfflineDrivers", "MIDI",
                                                           "CSndFile", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "SessionTests", dependencies: ["Session", "Engine", "AudioFiles", "OfflineDrivers", "CAllocationCounter",
                                                         "RenderTestSupport"]),
        .testTarget(name: "ALSATests", dependencies: ["ALSA", "Engine", "DSP", "Sequencing", "MIDI", "AudioFiles", "OfflineDrivers",
                                                      "Instruments", "Session", "Chains", "Control", "CommandLineInterface", "Sessions",
                                                      "CAllocationCounter", "CHostStallProbe", "RenderTestSupport"]),
        .testTarget(name: "JACKTests", dependencies: ["JACK", "CJACK", "Engine", "Session", "Sequencing", "MIDI", "Chains",
                                                      "Control", "CommandLineInterface", "Sessions", "CAllocationCounter",
                                                      "RenderTestSupport"]),
        .testTarget(name: "ChainsTests", dependencies: ["Chains", "CommandLineInterface", "Sessions", "Engine", "DSP", "AudioFiles",
                                                        "OfflineDrivers", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "ControlTests", dependencies: ["Control", "Chains", "CommandLineInterface", "DSP", "MIDI",
                                                         "RenderTestSupport"]),
        .testTarget(name: "CommandLineInterfaceTests", dependencies: ["CommandLineInterface", "Chains", "Control",
                                                                      "Instruments", "DSP", "RenderTestSupport"]),
        .testTarget(name: "SessionsTests", dependencies: ["Sessions", "Chains", "Control", "Engine", "DSP", "FeedbackGuard", "MIDI",
                                                          "CLiblo", "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "Chains", "Control", "CommandLineInterface", "Sessions",
                                                            "FeedbackGuard", "AudioFiles", "OfflineDrivers", "Session", "Engine", "MIDI",
                                                            "Sequencing"]),
        .testTarget(name: "BuskerCLITests", dependencies: ["AudioFiles", "Engine", "MIDI", "RenderTestSupport", "TerminalUI",
                                                           "Chains", "Control", "CommandLineInterface", "Sessions"]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks", "Chains", "Engine", "Instruments", "Sequencing", "MIDI",
                                                            "CAllocationCounter", "RenderTestSupport"]),
        .testTarget(name: "ArchitectureTests"),
    ]
)
