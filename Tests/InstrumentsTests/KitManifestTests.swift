import Foundation
import Instruments
import XCTest

/// The kit manifest is strict: typos and impossible values are errors that
/// name the file and the field, never silently ignored.
final class KitManifestTests: XCTestCase {
    private let layer = #"{ "velocity": [1, 127], "samples": ["a.wav"] }"#

    func testAFullManifestDecodesAndDefaultsAreFilledIn() throws {
        let manifest = try decode(#"""
        { "version": 1, "name": "Mine", "sampleRate": 44100, "credits": "me",
          "pads": [
            { "note": 42, "alsoNotes": [22], "name": "Hat", "chokeGroup": "hh", "gainDB": -3.5, "pan": -0.25,
              "voices": 8, "stopsOnNoteOff": true,
              "layers": [ { "velocity": [1, 60], "samples": ["a.wav", "b.wav"] }, { "velocity": [61, 127], "samples": ["c.wav"] } ] },
            { "note": 36, "layers": [ { "velocity": [1, 127], "samples": ["kick.wav"] } ] }
          ] }
        """#)
        XCTAssertEqual(manifest.name, "Mine")
        XCTAssertEqual(manifest.sampleRate, 44_100)
        XCTAssertEqual(manifest.pads[0], KitManifestPad(
            note: 42, alsoNotes: [22], name: "Hat", chokeGroup: "hh", gainDB: -3.5, pan: -0.25, voices: 8, stopsOnNoteOff: true,
            layers: [KitManifestLayer(velocities: 1...60, samples: ["a.wav", "b.wav"]), KitManifestLayer(velocities: 61...127, samples: ["c.wav"])]))
        let kick = manifest.pads[1]
        XCTAssertEqual(kick.name, "Bass Drum 1", "the General MIDI name by default")
        XCTAssertEqual([kick.voices, Int(kick.gainDB), Int(kick.pan)], [4, 0, 0])
        XCTAssertNil(kick.chokeGroup)
        XCTAssertFalse(kick.stopsOnNoteOff)
    }

    func testUnknownFieldsAreNamedWithTheirPlace() {
        let cases: [(String, String)] = [
            (#"{ "name": "K", "colour": "red", "pads": [ { "note": 36, "layers": [ \#(layer) ] } ] }"#, "colour"),
            (#"{ "name": "K", "pads": [ { "note": 36, "layers": [ \#(layer) ] }, { "note": 42, "chokegroup": "hh", "layers": [ \#(layer) ] } ] }"#,
             "pads[1].chokegroup"),
            (#"{ "name": "K", "pads": [ { "note": 36, "layers": [ { "velocity": [1, 127], "sample": ["a.wav"] } ] } ] }"#,
             "pads[0].layers[0].sample"),
        ]
        for (json, field) in cases {
            let error = decodingError(json)
            guard case let .unknownField(path, name, _)? = error else { XCTFail("\(String(describing: error))"); continue }
            XCTAssertEqual(name, field)
            XCTAssertTrue(path.hasSuffix("kit.json"))
            let text = error!.description
            XCTAssertTrue(text.contains("kit.json") && text.contains("'\(field)'"), text)
            print("kit manifest error: \(text)")
        }
    }

    func testImpossibleValuesAreErrorsNamingTheFileAndField() {
        func pad(_ body: String) -> String { #"{ "name": "K", "pads": [ \#(body) ] }"# }
        let cases: [(String, String)] = [
            (pad(#"{ "note": 130, "layers": [ \#(layer) ] }"#), "pads[0].note"),
            (pad(#"{ "note": -1, "layers": [ \#(layer) ] }"#), "pads[0].note"),
            (pad(#"{ "note": 36, "alsoNotes": [200], "layers": [ \#(layer) ] }"#), "pads[0].alsoNotes"),
            (pad(#"{ "note": 36, "voices": 0, "layers": [ \#(layer) ] }"#), "pads[0].voices"),
            (pad(#"{ "note": 36, "voices": 65, "layers": [ \#(layer) ] }"#), "pads[0].voices"),
            (pad(#"{ "note": 36, "pan": 1.5, "layers": [ \#(layer) ] }"#), "pads[0].pan"),
            (pad(#"{ "note": 36, "gainDB": 100, "layers": [ \#(layer) ] }"#), "pads[0].gainDB"),
            (pad(#"{ "note": 36, "gainDB": -200, "layers": [ \#(layer) ] }"#), "pads[0].gainDB"),
            (pad(#"{ "note": 36, "chokeGroup": "", "layers": [ \#(layer) ] }"#), "pads[0].chokeGroup"),
            (pad(#"{ "note": 36, "layers": [] }"#), "pads[0].layers"),
            (pad(#"{ "note": 36, "layers": [ { "velocity": [1, 64], "samples": ["a.wav"] }, { "velocity": [64, 127], "samples": ["b.wav"] } ] }"#),
             "pads[0].layers"),
            (pad(#"{ "note": 36, "layers": [ { "velocity": [90, 10], "samples": ["a.wav"] } ] }"#), "pads[0].layers[0].velocity"),
            (pad(#"{ "note": 36, "layers": [ { "velocity": [0, 10], "samples": ["a.wav"] } ] }"#), "pads[0].layers[0].velocity"),
            (pad(#"{ "note": 36, "layers": [ { "velocity": [1, 2, 3], "samples": ["a.wav"] } ] }"#), "pads[0].layers[0].velocity"),
            (pad(#"{ "note": 36, "layers": [ { "velocity": [1, 127], "samples": [] } ] }"#), "pads[0].layers[0].samples"),
            (pad(#"{ "note": 36, "layers": [ \#(layer) ] }, { "note": 35, "alsoNotes": [36], "layers": [ \#(layer) ] }"#), "pads[1]"),
            (#"{ "name": "K", "pads": [] }"#, "pads"),
            (#"{ "name": "", "pads": [ { "note": 36, "layers": [ \#(layer) ] } ] }"#, "name"),
            (#"{ "version": 2, "name": "K", "pads": [ { "note": 36, "layers": [ \#(layer) ] } ] }"#, "version"),
            (#"{ "name": "K", "sampleRate": 12, "pads": [ { "note": 36, "layers": [ \#(layer) ] } ] }"#, "sampleRate"),
        ]
        for (json, field) in cases {
            let error = decodingError(json)
            guard case let .invalidValue(_, name, _)? = error else { XCTFail("\(field): \(String(describing: error))"); continue }
            XCTAssertEqual(name, field)
            XCTAssertTrue(error!.description.contains("kit.json"), error!.description)
            print("kit manifest error: \(error!)")
        }
    }

    func testMissingFieldsWrongTypesAndBrokenJSONNameTheFile() {
        let missing = decodingError(#"{ "name": "K", "pads": [ { "layers": [ \#(layer) ] } ] }"#)
        XCTAssertEqual(missing?.field, "pads[0].note")
        guard case .missingField? = missing else { return XCTFail("\(String(describing: missing))") }

        let wrong = decodingError(#"{ "name": "K", "pads": [ { "note": 36, "pan": "left", "layers": [ \#(layer) ] } ] }"#)
        guard case let .wrongType(_, field, expected)? = wrong else { return XCTFail("\(String(describing: wrong))") }
        XCTAssertEqual(field, "pads[0].pan")
        XCTAssertEqual(expected, "a number")

        let truncated = decodingError(#"{ "name": "K", "pads": [ "#)
        guard case .notJSON? = truncated else { return XCTFail("\(String(describing: truncated))") }
        XCTAssertTrue(truncated!.description.contains("kit.json"))
        let typo = decodingError("{\n  \"name\": \"K\",\n  \"pads\": [ x ]\n}")
        XCTAssertTrue(typo?.description.contains("line 3, column 13") == true, "\(String(describing: typo))")
        print("kit manifest error: \(truncated!)\nkit manifest error: \(typo!)")

        XCTAssertThrowsError(try KitManifest.load(path: "/nowhere/kit.json")) { error in
            XCTAssertEqual(error as? KitManifestError, .cannotRead(path: "/nowhere/kit.json", reason: "no such file"))
        }
    }

    // MARK: Helpers

    private func decode(_ json: String) throws -> KitManifest {
        try KitManifest.decode(Data(json.utf8), path: "/kits/mine/kit.json")
    }

    private func decodingError(_ json: String) -> KitManifestError? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error as? KitManifestError
        }
    }
}
