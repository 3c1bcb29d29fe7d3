import CALSA
import Foundation
import Session

/// A process that has an ALSA PCM device node open, found through
/// `/proc/<pid>/fd` (Linux lets us see other users' processes' fds only as
/// root; otherwise we find our own user's, which is the common case).
public struct DeviceHolder: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    /// The short command name (`/proc/<pid>/comm`).
    public var command: String
    /// The device node, e.g. `/dev/snd/pcmC0D0p`.
    public var node: String

    public init(pid: Int32, command: String, node: String) {
        self.pid = pid
        self.command = command
        self.node = node
    }

    public var description: String { "\(command) (pid \(pid))" }

    /// Processes holding a PCM node that `device` (an ALSA name) may refer to.
    /// For `hw:1,0`, `plughw:CARD=USB,DEV=0` and the like only that card and
    /// device count; for other names (`default`, `dmix`…) any PCM node of
    /// the direction does, since we cannot tell which card they route to.
    /// - Realtime: unsafe (reads /proc). Control thread only.
    public static func holders(of device: String, direction: StreamDirection, procRoot: String = "/proc") -> [DeviceHolder] {
        let target = cardAndDevice(in: device)
        let suffix = direction == .capture ? "c" : "p"
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: procRoot) else { return [] }
        var found: [DeviceHolder] = []
        let me = getpid()
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            let fdDir = "\(procRoot)/\(entry)/fd"
            guard let fds = try? fm.contentsOfDirectory(atPath: fdDir) else { continue }
            for fd in fds {
                guard let link = try? fm.destinationOfSymbolicLink(atPath: "\(fdDir)/\(fd)"),
                      let node = parsePCMNode(link), node.direction == suffix else { continue }
                if let card = target.card, card != node.card { continue }
                if let dev = target.device, dev != node.device { continue }
                let comm = (try? String(contentsOfFile: "\(procRoot)/\(entry)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                found.append(DeviceHolder(pid: pid, command: comm, node: link))
                break
            }
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// `/dev/snd/pcmC1D0c` → (1, 0, "c").
    static func parsePCMNode(_ path: String) -> (card: Int, device: Int, direction: String)? {
        guard path.hasPrefix("/dev/snd/pcmC") else { return nil }
        let rest = path.dropFirst("/dev/snd/pcmC".count)
        guard let d = rest.firstIndex(of: "D"), let card = Int(rest[..<d]) else { return nil }
        let afterD = rest[rest.index(after: d)...]
        guard let last = afterD.last, last == "c" || last == "p", let device = Int(afterD.dropLast()) else { return nil }
        return (card, device, String(last))
    }

    /// The card and device an ALSA name designates, when it says so:
    /// `hw:1,0`, `hw:1`, `plughw:CARD=PCH,DEV=3`, `hw:PCH`.
    static func cardAndDevice(in name: String) -> (card: Int?, device: Int?) {
        guard let colon = name.firstIndex(of: ":") else { return (nil, nil) }
        let kind = name[..<colon]
        guard kind == "hw" || kind == "plughw" || kind == "sysdefault" || kind == "front" else { return (nil, nil) }
        var card: Int?
        var device: Int?
        for (i, part) in name[name.index(after: colon)...].split(separator: ",").enumerated() {
            let pieces = part.split(separator: "=", maxSplits: 1)
            let key = pieces.count == 2 ? pieces[0].uppercased() : (i == 0 ? "CARD" : i == 1 ? "DEV" : "")
            let value = String(pieces.count == 2 ? pieces[1] : pieces[0])
            switch key {
            case "CARD":
                let index = Int(value) ?? Int(snd_card_get_index(value))
                card = index >= 0 ? index : nil
            case "DEV":
                device = Int(value)
            default:
                break
            }
        }
        return (card, device)
    }
}
