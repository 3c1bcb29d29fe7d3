/// What a terminal answered to `Terminal.keyEventQuery`: the kitty keyboard
/// protocol's reply `CSI ? flags u`, the device attributes reply `CSI ? … c`,
/// and every other byte (keys typed meanwhile), in order.
struct TerminalReplies {
    var keyboardProtocol = false
    var deviceAttributes = false
    var rest: [UInt8] = []

    init() {}

    init(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "["), bytes[i + 2] == UInt8(ascii: "?") {
                var end = i + 3
                while end < bytes.count, (0x30...0x3F).contains(bytes[end]) { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "u") || bytes[end] == UInt8(ascii: "c") {
                    if bytes[end] == UInt8(ascii: "u") { keyboardProtocol = true } else { deviceAttributes = true }
                    i = end + 1
                    continue
                }
            }
            rest.append(bytes[i])
            i += 1
        }
    }
}
