/// The rooms the reverb offers, from a small booth to a concert hall.
///
/// A preset is only a starting point for `ReverbNode.roomSize`, `damping` and
/// `width`; `ReverbNode.apply(_:)` sets all three. The values were tuned so the
/// measured broadband RT60 (Schroeder backward integration, T20 fit) grows
/// clearly from one preset to the next; at 48 kHz (see `ReverbTests`):
///
/// | preset | room size | damping | width | RT60 (T20) |
/// |--------|-----------|---------|-------|------------|
/// | small  | 0.00      | 0.80    | 0.50  | ≈ 0.48 s   |
/// | medium | 0.45      | 0.50    | 0.80  | ≈ 0.94 s   |
/// | large  | 0.70      | 0.40    | 1.00  | ≈ 1.68 s   |
/// | hall   | 0.82      | 0.35    | 1.00  | ≈ 2.56 s   |
///
/// Small sits at Freeverb's shortest room (feedback 0.7) with heavy damping.
public enum RoomPreset: String, CaseIterable, Sendable {
    case small, medium, large, hall

    /// Room size, 0…1: the comb feedback (0.7…0.98, as in Freeverb).
    public var roomSize: Float {
        switch self {
        case .small: 0.00
        case .medium: 0.45
        case .large: 0.70
        case .hall: 0.82
        }
    }

    /// High-frequency damping in the tank, 0…1: more damping, darker and shorter treble tail.
    public var damping: Float {
        switch self {
        case .small: 0.80
        case .medium: 0.50
        case .large: 0.40
        case .hall: 0.35
        }
    }

    /// Stereo width of the wet signal, 0 (mono) … 1 (left and right tanks fully apart).
    public var width: Float {
        switch self {
        case .small: 0.50
        case .medium: 0.80
        case .large: 1.00
        case .hall: 1.00
        }
    }
}
