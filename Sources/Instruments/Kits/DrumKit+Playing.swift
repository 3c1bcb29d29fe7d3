// The audio thread's side of a drum kit: starting hits, choking, fading and
// mixing voices. Everything here works on the storage `DrumKit.init` laid
// out; nothing allocates, locks or touches a Swift collection.

extension DrumKit {
    // MARK: Audio thread

    /// Starts a hit of the pad `note` plays, at `velocity` (1–127), and
    /// chokes the other pads of its choke group.
    ///
    /// Velocity sets the layer (by the manifest's ranges) and the gain,
    /// (velocity/127)² times the layer's own gain: the SoundFont default velocity-to-attenuation curve
    /// (40·log10(v/127) dB: −12 dB at 64, −40 dB at 13), so the drums answer
    /// a keyboard's touch the way the FluidSynth sampler beside them does.
    ///
    /// The pad's next free voice is taken, round-robin; when all are busy the
    /// oldest is stolen: it moves to the pad's fade-out slot and fades over
    /// `DrumFade.stealSeconds` while the new hit starts in its place.
    /// - Returns: the pad's index, or −1 when no pad plays `note` or the velocity falls in a gap.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func hit(note: UInt8, velocity: UInt8) -> Int {
        let padIndex = Int(padForNote[Int(note & 0x7F)])
        guard padIndex >= 0 else { return -1 }
        let layerIndex = Int(layerForVelocity[padIndex * 128 + Int(velocity & 0x7F)])
        guard layerIndex >= 0 else { return -1 }
        let pad = padTable[padIndex]
        if pad.chokeGroup != 0 {
            // Plain `if`s: an `&&` is an autoclosure, which the checker counts as retaining `self`.
            for other in 0..<padCount where other != padIndex {
                if padTable[other].chokeGroup == pad.chokeGroup { fadePad(other, frames: chokeFadeFrames) }
            }
        }
        // Round-robin between the layer's samples.
        let layer = layerTable[layerIndex]
        let sample = sampleTable[Int(layerRuns[layer.firstSample + layer.nextSample])]
        layerTable[layerIndex].nextSample = layer.nextSample + 1 == layer.sampleCount ? 0 : layer.nextSample + 1

        let slot = takeVoice(padIndex: padIndex)
        let level = Float(velocity & 0x7F) / 127
        let gain = level * level * layer.gain
        voices[slot] = DrumVoice(
            isActive: true, sample: sample, position: 0,
            gainLeft: pad.gainLeft * gain, gainRight: pad.gainRight * gain,
            fadeRemaining: 0, fadeStep: 0, serial: nextSerial)
        nextSerial &+= 1
        return padIndex
    }

    /// A note-off: fades the pad out if it asks for that (`stopsOnNoteOff`);
    /// drums are one-shots, so by default nothing happens.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func release(note: UInt8) {
        let padIndex = Int(padForNote[Int(note & 0x7F)])
        guard padIndex >= 0, padTable[padIndex].stopsOnNoteOff else { return }
        fadePad(padIndex, frames: silenceFadeFrames)
    }

    /// Fades every sounding voice out over `frames` frames (all notes off,
    /// all sound off, reset, or this kit being replaced).
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func fadeAll(frames: Int) {
        for i in 0..<voiceCount {
            voices[i].fadeOut(frames: frames)
            tails[i].fadeOut(frames: frames)
        }
    }

    /// Silences every voice at once, without a fade: for `reset`, when nothing is playing out.
    /// - Thread: audio, control
    /// - Realtime: safe
    @_noLocks
    func stopAll() {
        for i in 0..<voiceCount {
            voices[i].isActive = false
            tails[i].isActive = false
        }
    }

    /// Adds `frames` frames of every sounding voice to `left` and `right`.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        for i in 0..<voiceCount {
            voices[i].mix(into: left, right, frames: frames)
            tails[i].mix(into: left, right, frames: frames)
        }
    }

    /// Counts the voices sounding now: voices, and stolen ones still fading.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func countSoundingVoices() -> Int {
        var sounding = 0
        for i in 0..<voiceCount {
            if voices[i].isActive { sounding += 1 }
            if tails[i].isActive { sounding += 1 }
        }
        return sounding
    }

    // MARK: Audio thread: voice allocation

    /// A voice slot of the pad for a new hit: the next free one round-robin,
    /// else the oldest, which is first moved to a fade-out slot.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private func takeVoice(padIndex: Int) -> Int {
        let pad = padTable[padIndex]
        for k in 0..<pad.voiceCount {
            let candidate = (pad.nextVoice + k) % pad.voiceCount
            if !voices[pad.firstVoice + candidate].isActive {
                padTable[padIndex].nextVoice = (candidate + 1) % pad.voiceCount
                return pad.firstVoice + candidate
            }
        }
        var oldest = pad.firstVoice
        for slot in pad.firstVoice..<(pad.firstVoice + pad.voiceCount) where voices[slot].serial < voices[oldest].serial {
            oldest = slot
        }
        // The fade-out slot: a free one, else the one closest to silence
        // (cut at the very end of its fade, where its level is lowest).
        var tail = -1
        var quietest = pad.firstVoice
        for slot in pad.firstVoice..<(pad.firstVoice + pad.voiceCount) {
            if !tails[slot].isActive { tail = slot; break }
            if tails[slot].envelope < tails[quietest].envelope { quietest = slot }
        }
        if tail < 0 { tail = quietest }
        tails[tail] = voices[oldest]
        tails[tail].fadeOut(frames: stealFadeFrames)
        padTable[padIndex].nextVoice = (oldest - pad.firstVoice + 1) % pad.voiceCount
        return oldest
    }

    /// Fades every voice of one pad (choke, note-off).
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private func fadePad(_ padIndex: Int, frames: Int) {
        let pad = padTable[padIndex]
        for slot in pad.firstVoice..<(pad.firstVoice + pad.voiceCount) {
            voices[slot].fadeOut(frames: frames)
            tails[slot].fadeOut(frames: frames)
        }
    }
}
