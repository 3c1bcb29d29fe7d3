import ALSA
import Engine

extension PCMSampleFormat {
    /// `decode` for an interleaved source: `block.channelCount` samples per
    /// frame, back to back.
    func decodeInterleaved(_ source: UnsafeRawPointer, into block: AudioBlock, frames: Int) {
        decode(source, channelStride: bytesPerSample, frameStride: bytesPerSample * block.channelCount,
               into: block, frames: frames)
    }
}
