/// Two observers told of every cycle, in order: a stage's two MIDI
/// schedulers (the player's instruments and the backing song) on one engine.
/// Two fixed references, not an array, so the audio thread walks no collection.
public final class RenderCycleObserverPair: RenderCycleObserver {
    public let first: any RenderCycleObserver
    public let second: any RenderCycleObserver

    /// - Realtime: unsafe (allocates). Control thread.
    public init(_ first: any RenderCycleObserver, _ second: any RenderCycleObserver) {
        self.first = first
        self.second = second
    }

    /// - Thread: audio
    /// - Realtime: safe (calls two observers that must be)
    public func beginCycle(sampleTime: Int64, frameCount: Int, sampleRate: Double, hostTime: UInt64) {
        first.beginCycle(sampleTime: sampleTime, frameCount: frameCount, sampleRate: sampleRate, hostTime: hostTime)
        second.beginCycle(sampleTime: sampleTime, frameCount: frameCount, sampleRate: sampleRate, hostTime: hostTime)
    }

    /// - Thread: audio
    /// - Realtime: safe (calls two observers that must be)
    public func showBlock(offset: Int, frameCount: Int) {
        first.showBlock(offset: offset, frameCount: frameCount)
        second.showBlock(offset: offset, frameCount: frameCount)
    }
}
