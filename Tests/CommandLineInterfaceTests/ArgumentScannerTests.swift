import CommandLineInterface
import XCTest

/// Options declared by help text (`OptionDeclaration`) and read by
/// `ArgumentScanner(_:help:)`: short forms, other spellings, repeats.
final class ArgumentScannerTests: XCTestCase {
    private let help = """
    usage: busker thing [options]

    A description that mentions --not-an-option in passing.

    section:
      -D, --device, --output PCM
                             the PCM (see busker devices)
      -r, --rate HZ          sample rate
      --midi auto|none|CLIENT:PORT
                             a source; repeatable: --midi 20:0 --midi 24:0
      --limiter-lookahead MS the look-ahead, 0…5 ms
      --record [PATH]        record
      --bass DB  --treble DB  --room NAME
      --gate                 noise gate
      -v, --verbose          more
      -h, --help             show this help
    """

    private func assertUsageError(_ arguments: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ArgumentScanner(arguments, help: help), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
            XCTAssertEqual((error as? CommandLineError)?.exitCode, 2, file: file, line: line)
        }
    }

    func testHelpTextDeclaresTheOptions() {
        let options = OptionDeclaration.parse(helpText: help)
        XCTAssertEqual(options.map(\.name), ["device", "rate", "midi", "limiter-lookahead", "record", "bass", "treble", "room", "gate", "verbose", "help"])
        XCTAssertEqual(options[0].names, ["device", "output"])
        XCTAssertEqual(options[0].letter, "D")
        XCTAssertEqual(options[0].placeholder, "PCM")
        XCTAssertEqual(options[0].description, "the PCM (see busker devices)")
        XCTAssertEqual(options[0].spellings, ["-D", "--device", "--output"])
        XCTAssertEqual(options[2].valueWords, ["auto", "none"])
        XCTAssertEqual(options.filter(\.repeatable).map(\.name), ["midi"])
        XCTAssertEqual(options[3].placeholder, "MS")
        XCTAssertEqual(options[3].description, "the look-ahead, 0…5 ms")
        XCTAssertTrue(options[4].valueIsOptional)
        XCTAssertEqual(options[5...7].map(\.placeholder), ["DB", "DB", "NAME"])
        XCTAssertNil(options[8].placeholder, "a flag")
        XCTAssertEqual(options[8].description, "noise gate")
    }

    func testEverySpellingReadsTheSameOption() throws {
        for arguments in [["-D", "hw:1"], ["-Dhw:1"], ["--device", "hw:1"], ["--device=hw:1"], ["--output", "hw:1"]] {
            let args = try ArgumentScanner(arguments, help: help)
            XCTAssertEqual(args.string("device"), "hw:1", "\(arguments)")
            XCTAssertEqual(args.string("output"), "hw:1", "\(arguments)")
        }
        XCTAssertEqual(try ArgumentScanner(["-r", "44100"], help: help).int("rate", in: 8000...192_000), 44100)
        XCTAssertEqual(try ArgumentScanner(["-r44100"], help: help).int("rate", in: 8000...192_000), 44100)
        XCTAssertTrue(try ArgumentScanner(["-v"], help: help).has("verbose"))
        XCTAssertTrue(try ArgumentScanner(["-h"], help: help).has("help"))
        XCTAssertEqual(try ArgumentScanner(["-Dhw:1"], help: help).spelling("output"), "-D", "messages name the option as written")
        XCTAssertEqual(try ArgumentScanner(["--output=hw:1"], help: help).spelling("device"), "--output")
        XCTAssertEqual(try ArgumentScanner([], help: help).spelling("device"), "--device")
    }

    func testARepeatableOptionKeepsEveryValue() throws {
        let args = try ArgumentScanner(["--midi", "20:0", "--midi=24:0"], help: help)
        XCTAssertEqual(args.strings("midi"), ["20:0", "24:0"])
    }

    func testTheRestartLineKeepsEveryMIDISource() throws {
        let declared = [OptionDeclaration(names: ["midi"], placeholder: "PORT", repeatable: true),
                        OptionDeclaration(names: ["sample-format", "format"], letter: "f", placeholder: "FMT")]
        let args = try ArgumentScanner(["--midi", "20:0", "-f", "S16_LE", "--midi", "24:0"], declared: declared)
        XCTAssertEqual(LiveRestartCommand.deviceArguments(args), ["--format", "S16_LE", "--midi", "20:0", "--midi", "24:0"])
    }

    func testAnOptionGivenTwiceIsAUsageError() {
        assertUsageError(["-D", "hw:1", "--output", "hw:2"], "option --output is given twice (it takes one value)")
        assertUsageError(["--rate", "44100", "-r", "48000"], "option -r is given twice (it takes one value)")
        assertUsageError(["--gate", "--gate"], "option --gate is given twice (it takes one)")
        assertUsageError(["--not-an-option"], "unknown option '--not-an-option'")
        assertUsageError(["-x"], "unknown option '-x'")
        assertUsageError(["--gate=on"], "option --gate takes no value")
    }

    func testTheOldDeclarationsStillLetAnOptionRepeat() throws {
        let args = try ArgumentScanner(["--volume", "0.2", "--volume", "0.4", "-h"], valued: ["volume"], flags: ["help"])
        XCTAssertEqual(args.string("volume"), "0.4")
        XCTAssertTrue(args.has("help"), "-h is --help wherever --help is known")
    }

    func testPlaceholdersAreFound() {
        XCTAssertEqual(CommandHelp.placeholders(in: "usage: busker <command> [options]\n  --rate HZ  sample rate"), [])
        XCTAssertEqual(CommandHelp.placeholders(in: "  --rate <rate>  TODO: say the range; XXX\n  <…>"), ["TODO", "XXX", "<rate>", "<…>"])
        XCTAssertEqual(CommandHelp.placeholders(in: "mic → EQ, a <- b, 1 < 2 and 3 > 2"), [])
    }

    func testAnUnknownOptionNamesTheClosestDeclaredOnes() {
        XCTAssertEqual(OptionSuggestion.editDistance(Array("volum"), Array("volume")), 1)
        XCTAssertEqual(OptionSuggestion.editDistance(Array("voluem"), Array("volume")), 1, "two neighbours swapped is one edit")
        XCTAssertEqual(OptionSuggestion.editDistance(Array("gain"), Array("rate")), 3)
        XCTAssertEqual(OptionSuggestion.editDistance(Array(""), Array("rate")), 4)
        let known = ["volume", "gain", "pan", "bass", "boost", "reverb", "room"]
        XCTAssertEqual(OptionSuggestion.closest(to: "volum", among: known), ["volume"])
        XCTAssertEqual(OptionSuggestion.closest(to: "gan", among: known), ["gain", "pan"], "ties, in order")
        XCTAssertEqual(OptionSuggestion.closest(to: "vol", among: known), ["volume"], "the one option it starts")
        XCTAssertEqual(OptionSuggestion.closest(to: "loudness", among: known), [])
        XCTAssertEqual(OptionSuggestion.hint(for: "gan", among: known), " (did you mean --gain or --pan?)")
        XCTAssertEqual(OptionSuggestion.hint(for: "loudness", among: known), "")
        // Through the scanner: the declared options of the help text.
        XCTAssertThrowsError(try ArgumentScanner(["--outptu", "x"], valued: ["output", "rate"], flags: ["help"])) { error in
            XCTAssertEqual("\(error)", "unknown option '--outptu' (did you mean --output?)")
        }
    }
}
