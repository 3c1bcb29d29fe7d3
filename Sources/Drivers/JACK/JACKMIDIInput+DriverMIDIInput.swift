import Session

/// `midi_in` as the session sees a driver's own MIDI input.
extension JACKMIDIInput: DriverMIDIInput {
    public var portName: String { Self.portName }

    public var patchHint: String {
        "MIDI in on \(qualifiedName) (patch a source to it: jack_connect SOURCE \(qualifiedName))"
    }
}
