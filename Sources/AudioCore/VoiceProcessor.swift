/// A voice processor the voice chain can carry without depending on it:
/// SpeechProcessing's speexdsp node (noise suppression and gain control)
/// conforms, and `VoiceChain` places it after the high-pass.
///
/// - Realtime: `isOn` is an atomic the control thread sets while the audio
///   thread renders; `latencyFrames` is fixed once the node is prepared.
public protocol VoiceProcessor: AnyObject {
    /// Frames the node delays its input by, whether on or off (valid after prepare).
    var latencyFrames: Int { get }
    /// Whether it processes; off, it passes its input through, still delayed by `latencyFrames`.
    var isOn: Bool { get set }
}
