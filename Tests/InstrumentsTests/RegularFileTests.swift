import Foundation
import Instruments
import XCTest

/// `RegularFile.open` and `contents`: the type is checked on the descriptor
/// opened (without blocking), and what is read is that file, whatever the
/// path names afterwards. Kit samples, kit files and Hydrogen kits go
/// through them.
final class RegularFileTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-regular-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// Runs `body` on a thread of its own and gives its result, or nil when
    /// it has not returned within 5 s (an open of a FIFO without a writer
    /// never returns; 5 s only bounds the test).
    private func withinFiveSeconds<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.value = body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + 5) == .success ? box.value : nil
    }

    func testAFIFOIsRefusedWithoutBlocking() throws {
        let path = folder.appendingPathComponent("kick.wav").path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let opened = withinFiveSeconds { RegularFile.open(path).map { $0.bytes } }
        XCTAssertEqual(opened, .failure(.notAFile("a FIFO")), "a FIFO's open must return at once, refused")
        let read = withinFiveSeconds { RegularFile.contents(path, limit: 1 << 20) }
        XCTAssertEqual(read, .failure(.notAFile("a FIFO")))
        XCTAssertEqual(RegularFile.Refusal.notAFile("a FIFO").reason, "is a FIFO, not a file")
    }

    /// The descriptor given back reads the file checked, blocking as a file
    /// does, after the path was swapped for a FIFO.
    func testTheDescriptorReadsTheFileCheckedNotWhatThePathNamesLater() throws {
        let path = folder.appendingPathComponent("snare.wav").path
        try Data("the checked file".utf8).write(to: URL(fileURLWithPath: path))
        guard case let .success(file) = RegularFile.open(path) else { return XCTFail("\(RegularFile.open(path))") }
        defer { close(file.descriptor) }
        XCTAssertEqual(file.bytes, 16)
        XCTAssertEqual(fcntl(file.descriptor, F_GETFL) & O_NONBLOCK, 0, "blocking again for reading")
        XCTAssertNotEqual(fcntl(file.descriptor, F_GETFD) & FD_CLOEXEC, 0, "close-on-exec")
        XCTAssertEqual(unlink(path), 0)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = bytes.withUnsafeMutableBytes { read(file.descriptor, $0.baseAddress, $0.count) }
        XCTAssertEqual(String(decoding: bytes.prefix(max(0, n)), as: UTF8.self), "the checked file")
        XCTAssertEqual(withinFiveSeconds { RegularFile.contents(path, limit: 1 << 20) }, .failure(.notAFile("a FIFO")))
    }

    func testContentsOfFilesMissingTooLargeAndADirectory() throws {
        let path = folder.appendingPathComponent("kit.json").path
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(RegularFile.contents(path, limit: 100), .success([UInt8](repeating: 0x41, count: 100)))
        XCTAssertEqual(RegularFile.contents(path, limit: 99), .failure(.tooLarge(bytes: 100)))
        XCTAssertEqual(RegularFile.contents(folder.appendingPathComponent("none").path, limit: 10), .failure(.system(ENOENT)))
        XCTAssertEqual(RegularFile.contents(folder.path, limit: 10), .failure(.notAFile("a directory")))
    }
}

/// What a thread returned, read after its semaphore.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
