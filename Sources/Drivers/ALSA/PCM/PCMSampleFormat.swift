import CALSA

/// The interleaved sample formats the duplex driver can exchange with a
/// device. Everything else in Busker is planar Float32; conversion happens
/// at the driver's edge, in preallocated buffers (see `PCMSampleFormat+Conversion`).
public enum PCMSampleFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 32-bit IEEE float: no conversion cost, no quantization.
    case float32 = "FLOAT_LE"
    /// 32-bit signed integer (most USB and HDA codecs' native width).
    case s32 = "S32_LE"
    /// 24-bit signed integer in the low three bytes of a 32-bit word.
    case s24 = "S24_LE"
    /// 24-bit signed integer packed in three bytes (common on USB class-compliant devices).
    case s24Packed = "S24_3LE"
    /// 16-bit signed integer: every device does it, with the least headroom.
    case s16 = "S16_LE"

    /// The order the driver tries formats in: exact first, then the widest
    /// integer formats, so that nothing is thrown away before the device's
    /// own converter (if any) sees it.
    public static let preferenceOrder: [PCMSampleFormat] = [.float32, .s32, .s24, .s24Packed, .s16]

    /// The libasound format constant.
    public var alsaFormat: snd_pcm_format_t {
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .s24: SND_PCM_FORMAT_S24_LE
        case .s24Packed: SND_PCM_FORMAT_S24_3LE
        case .s16: SND_PCM_FORMAT_S16_LE
        }
    }

    // MARK: Audio thread

    /// Bytes one sample of one channel occupies in the device buffer.
    /// - Thread: audio, control
    /// - Realtime: safe
    public var bytesPerSample: Int {
        switch self {
        case .float32, .s32, .s24: 4
        case .s24Packed: 3
        case .s16: 2
        }
    }

    // MARK: Control thread

    /// ALSA's name for the format, as `aplay -f` spells it.
    public var description: String { rawValue }

    /// The format for an ALSA name (`FLOAT_LE`, `S16_LE`, …), case-insensitive.
    public init?(alsaName: String) {
        guard let format = PCMSampleFormat(rawValue: alsaName.uppercased()) else { return nil }
        self = format
    }
}
