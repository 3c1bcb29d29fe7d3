/// A take's recorders: the master and its stems, on one record switch. They
/// start and stop on the same block, and they end together: a write error in
/// any of them ends the whole take (the one that failed has already turned
/// the shared switch off), and the others' reports say they ended because of it.
public final class TakeGroup {
    public let master: Recorder
    public let stems: [Recorder]

    public init(master: Recorder, stems: [Recorder] = []) {
        self.master = master
        self.stems = stems
    }

    /// The master first, then the stems.
    public var recorders: [Recorder] { [master] + stems }

    /// The first recorder a write error stopped, if one did.
    public var failed: Recorder? { recorders.first { $0.hasFailed } }

    /// Ends every recorder (see `Recorder.stop`). When one failed, the others'
    /// reports get `endedBy` naming it.
    /// - Returns: the reports, the master's first.
    /// - Realtime: unsafe (joins threads). Control thread.
    public func stop(audioHasStopped: Bool = false) -> [TakeReport] {
        var reports = recorders.map { $0.stop(audioHasStopped: audioHasStopped) }
        if let culprit = reports.firstIndex(where: { $0.error != nil }) {
            let role = culprit == 0 ? "master" : "stem"
            for i in reports.indices where reports[i].error == nil {
                reports[i].endedBy = "its \(role) \(reports[culprit].path) failed"
            }
        }
        return reports
    }
}
