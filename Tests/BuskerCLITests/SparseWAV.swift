import Foundation

/// A 16-bit mono 8 kHz WAV whose header promises 4 GB (0xFFFF0000 bytes) of
/// data, made as a sparse file of silence: an input far longer than any test
/// waits for, at no cost in disk space.
/// - Returns: the data's size in bytes.
@discardableResult
func writeSparseWAV(at path: String) throws -> UInt32 {
    let dataBytes: UInt32 = 0xFFFF_0000
    func le32(_ x: UInt32) -> [UInt8] { (0..<4).map { UInt8((x >> (8 * UInt32($0))) & 0xFF) } }
    let header = Array("RIFF".utf8) + le32(dataBytes + 36) + Array("WAVEfmt ".utf8) + le32(16)
        + [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0] + Array("data".utf8) + le32(dataBytes)
    try Data(header).write(to: URL(fileURLWithPath: path))
    guard truncate(path, off_t(header.count) + off_t(dataBytes)) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    return dataBytes
}
