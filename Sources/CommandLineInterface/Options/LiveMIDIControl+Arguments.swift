import Control

/// `--midi` and `--midi-in` of `busker live`.
extension LiveMIDIControl {
    public static let valued: Set<String> = ["midi", "midi-in"]

    public static let help = """
    MIDI control (a footswitch or controller drives the live controls):
      --midi auto|none|CLIENT:PORT
                             ALSA sequencer: auto connects every hardware MIDI input and
                             follows them as they come and go (default); CLIENT:PORT picks
                             one, as aconnect names it (20:0, "Keystation:0"; repeatable:
                             --midi 20:0 --midi 24:0 connects both); none skips it
      --midi-in PATH         read raw MIDI bytes from a device (/dev/snd/midiC1D0), a FIFO or a file
                             (with a /dev/snd device, --midi defaults to none: the two would share it)
      default mapping, any channel: CC 64 (sustain footswitch) toggles the mic on each press;
      CC 7 sets the volume, CC 91 strip 1's reverb send (a fader far from the current value
      does nothing until it reaches it: soft takeover). Key l learns: press l, then a control's
      key, then move a knob or pedal or hit a pad. A preset keeps the mapping.
    """
}
