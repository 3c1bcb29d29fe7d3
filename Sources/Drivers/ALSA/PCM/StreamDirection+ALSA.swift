import CALSA
import Session

extension StreamDirection {
    /// The matching libasound stream constant.
    public var stream: snd_pcm_stream_t {
        switch self {
        case .capture: SND_PCM_STREAM_CAPTURE
        case .playback: SND_PCM_STREAM_PLAYBACK
        }
    }
}
