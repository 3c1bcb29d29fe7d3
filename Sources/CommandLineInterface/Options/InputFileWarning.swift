import Recording

/// What an input file's header hides: a WAV whose header declares less
/// audio than the file holds (a take from a program that crashed before it
/// wrote its sizes) plays only what the header declares, which may be
/// nothing. Said in one line, with the command that recovers the rest.
///
/// - Realtime: unsafe (file I/O). Control thread.
public enum InputFileWarning {
    /// The warning for `path`, or nil when its header covers its audio (or it
    /// is not a WAV: libsndfile judges other formats by their own rules).
    public static func unclaimedAudio(path: String) -> String? {
        guard let header = try? WAVRepair.inspect(path: path), header.unclaimedBytes > 0 else { return nil }
        return "\(path): header says \(header.framesBefore) frames, the file holds \(header.unclaimedBytes) more bytes: "
            + "busker repair \(path) recovers them"
    }
}
