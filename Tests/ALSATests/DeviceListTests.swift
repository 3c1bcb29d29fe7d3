import ALSA
import Foundation
import XCTest

final class DeviceListTests: XCTestCase {
    func testListingHasTheSystemPCMsAndSaysWhichIsDefault() {
        let list = DeviceList.current()
        // alsa.conf always defines `null`, with a hint.
        let null = list.pcms.first { $0.name == "null" }
        XCTAssertNotNil(null, "\(list.pcms.map(\.name))")
        XCTAssertEqual(null?.directions, [.capture, .playback])
        XCTAssertFalse(null?.description.isEmpty ?? true)
        let text = list.description
        XCTAssertTrue(text.contains("PCM names"))
        XCTAssertTrue(text.contains("Cards:"))
        if list.cards.isEmpty {
            XCTAssertTrue(text.contains("no sound card found"), text)
            XCTAssertTrue(text.contains("Tools/virtual-soundcard"), text)
            XCTAssertNil(list.defaultCardIndex)
        } else {
            XCTAssertTrue(text.contains("card \(list.cards[0].index):"), text)
        }
        print(text)
    }

    func testCardIndicesMatchDevSnd() {
        let controls = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? [])
            .filter { $0.hasPrefix("controlC") }
        XCTAssertEqual(DeviceList.cardIndices().count, controls.count)
    }
}
