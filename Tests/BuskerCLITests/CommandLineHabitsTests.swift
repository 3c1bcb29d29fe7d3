import CommandLineInterface
import Foundation
import RenderTestSupport
import XCTest

/// The habits users bring from aplay, arecord and fluidsynth: -h on every
/// command, -D/-r/-c/-d/-f, ALSA's sample format names, files in any order,
/// repeated options; and the man page and completion made from the help.
final class CommandLineHabitsTests: XCTestCase {
    private var work: URL!
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws { work = try makeWorkFolder("busker-habits") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// The commands `busker --help` lists (two-space indent, a name, two spaces).
    private func commands() throws -> [String] {
        let top = try runBusker(["--help"])
        XCTAssertEqual(top.status, 0)
        let listed = top.stdout.split(separator: "\n").drop(while: { $0 != "commands:" }).dropFirst()
            .prefix(while: { $0.hasPrefix("  ") })
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        return listed
    }

    /// Placeholders left unfilled, as `CommandHelp.placeholders` defines them
    /// (TODO, FIXME, XXX, TBD; `<…>`; an angle-bracketed word but `<command>`).
    private func placeholders(_ text: String) -> [String] {
        var found = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            .map(String.init).filter { ["TODO", "FIXME", "XXX", "TBD"].contains($0) }
        let regex = try! NSRegularExpression(pattern: "<[^<>\\s=-]+>")
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let word = String(text[Range(match.range, in: text)!])
            if word != "<command>" { found.append(word) }
        }
        return found
    }

    func testEveryCommandTakesDashHAndItsHelpHasNoPlaceholder() throws {
        let names = try commands()
        // Read from busker --help, so a new command is covered too.
        XCTAssertTrue(Set(names).isSuperset(of: ["live", "play", "render", "kits", "record", "repair", "devices", "bench", "help"]), "\(names)")
        XCTAssertEqual(placeholders(try runBusker(["--help"]).stdout), [])
        for name in names {
            let short = try runBusker([name, "-h"]), long = try runBusker([name, "--help"]), viaHelp = try runBusker(["help", name])
            XCTAssertEqual(short.status, 0, "busker \(name) -h: \(short.stderr)")
            XCTAssertEqual(long.status, 0, "busker \(name) --help")
            XCTAssertEqual(short.stdout, long.stdout, name)
            XCTAssertEqual(short.stdout, viaHelp.stdout, name)
            XCTAssertTrue(short.stdout.hasPrefix("usage: busker \(name)"), name)
            XCTAssertTrue(short.stdout.contains("-h, --help"), "\(name) lists -h")
            XCTAssertEqual(placeholders(short.stdout), [], "busker \(name) -h")
        }
    }

    /// A format-0 song: a piano chord and a kick at 0.25 s, ending at 1 s.
    private func writeSong() throws -> String {
        let track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,
                              0x00, 0x90, 60, 100, 0x00, 0x90, 64, 100, 0x00, 0x99, 36, 120,
                              0x83, 0x60, 0x80, 60, 0, 0x00, 0x80, 64, 0, 0x00, 0x89, 36, 0,
                              0x00, 0xFF, 0x2F, 0x00]
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        let song = path("song.mid")
        try Data(bytes).write(to: URL(fileURLWithPath: song))
        return song
    }

    func testRenderTakesTheSongAndTheSoundFontInEitherOrder() throws {
        let song = try writeSong()
        let a = path("font-first.wav"), b = path("song-first.wav"), c = path("option.wav")
        let first = try runBusker(["render", smallFont, song, "-o", a, "--no-progress"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = try runBusker(["render", song, smallFont, "-o", b, "--no-progress"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let third = try runBusker(["render", song, "--soundfont", smallFont, "-o", c, "--no-progress"])
        XCTAssertEqual(third.status, 0, third.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: a))
        XCTAssertGreaterThan(bytes.count, 48000 * 2 * 3, "at least a second of 24-bit stereo")
        XCTAssertEqual(bytes, try Data(contentsOf: URL(fileURLWithPath: b)))
        XCTAssertEqual(bytes, try Data(contentsOf: URL(fileURLWithPath: c)))
        XCTAssertTrue(first.stdout.contains("TimGM6mb.sf2"), first.stdout)

        let twice = try runBusker(["render", song, smallFont, "--soundfont", smallFont, "-o", a])
        XCTAssertEqual(twice.status, 2)
        XCTAssertEqual(twice.stderr, "busker: '\(smallFont)' is a SoundFont and --soundfont names another: give one\n")
    }

    /// Bits per sample and the format tag of a WAV's fmt chunk.
    private func wavFormat(_ path: String) throws -> (tag: Int, bits: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if id == "fmt " {
                var tag = Int(bytes[offset + 8]) | Int(bytes[offset + 9]) << 8
                if tag == 0xFFFE { tag = Int(bytes[offset + 32]) | Int(bytes[offset + 33]) << 8 }
                return (tag, Int(bytes[offset + 22]) | Int(bytes[offset + 23]) << 8)
            }
            offset += 8 + size + (size & 1)
        }
        XCTFail("\(path) has no fmt chunk")
        return (0, 0)
    }

    func testALSASampleFormatNamesAreTakenWhereASampleFormatIsMeant() throws {
        let song = try writeSong()
        let cases: [(String, String, (Int, Int))] = [("--format", "S16_LE", (1, 16)), ("-f", "S24_3LE", (1, 24)),
                                                      ("--sample-format", "S32_LE", (1, 32)), ("--format", "FLOAT_LE", (3, 32)),
                                                      ("--format", "s16", (1, 16)), ("--sample-format", "f32", (3, 32))]
        for (option, name, expected) in cases {
            let out = path("render-\(name).wav")
            let r = try runBusker(["render", song, "-o", out, "--soundfont", smallFont, option, name, "--no-progress"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let format = try wavFormat(out)
            XCTAssertEqual(format.tag, expected.0, "render \(option) \(name)")
            XCTAssertEqual(format.bits, expected.1, "render \(option) \(name)")
        }
        let verbose = try runBusker(["render", song, "-o", path("v.wav"), "--soundfont", smallFont, "-f", "S16_LE", "-v", "--no-progress"])
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertTrue(verbose.stdout.contains("busker render: SoundFont: \(smallFont)\n"), verbose.stdout)
        XCTAssertTrue(verbose.stdout.contains("busker render: output: \(path("v.wav")), S16_LE at 48000 Hz, blocks of 1024 frames\n"), verbose.stdout)
        let voice = "/usr/share/sounds/alsa/Front_Center.wav"
        let live = try runBusker(["live", "--input", "file:" + voice, "--output", "file:" + path("live.wav"), "--format", "S16_LE", "-v"])
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertTrue(live.stdout.contains("S16_LE at 48000 Hz"), "-v names the sample format as ALSA does: \(live.stdout)")
        XCTAssertEqual(try wavFormat(path("live.wav")).bits, 16)
        let record = try runBusker(["record", path("take.wav"), "--input", "file:" + voice, "-f", "S16_LE"])
        XCTAssertEqual(record.status, 0, record.stderr)
        XCTAssertEqual(try wavFormat(path("take.wav")).bits, 16)
        let bad = try runBusker(["render", song, "-o", path("x.wav"), "--format", "S20_LE"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "busker: --sample-format must be S16_LE, S24_3LE, S32_LE or FLOAT_LE (or s16, s24, s32, f32), not 'S20_LE'\n")
    }

    func testAnOptionGivenTwiceIsAUsageErrorUnlessItRepeats() throws {
        let song = try writeSong()
        let cases: [([String], String)] = [
            (["render", song, "-o", path("a.wav"), "--output", path("b.wav")], "option --output is given twice (it takes one value)"),
            (["live", "--volume", "0.2", "--volume", "0.3"], "option --volume is given twice (it takes one value)"),
            (["record", "-d", "1", "--duration", "2"], "option --duration is given twice (it takes one value)"),
            (["play", "--midi", "none", "--midi", "20:0"], "--midi none turns the sequencer off: give it alone, not with 20:0"),
            (["play", "--midi", "auto", "--midi", "20:0", "--output", "null"],
             "--midi auto takes every hardware input: give it alone, not with 20:0"),
            (["live", "--record-format", "flac", "--record-format", "wav16"], "option --record-format is given twice (the take has one format)"),
        ]
        for (arguments, message) in cases {
            let r = try runBusker(arguments)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stderr, "busker: \(message)\n", "\(arguments)")
        }
    }

    func testTheManPageIsMadeFromTheHelpAndRenders() throws {
        let page = try runBusker(["help", "--man"])
        XCTAssertEqual(page.status, 0, page.stderr)
        let file = path("busker.1")
        try page.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "100"
        environment["MAN_KEEP_FORMATTING"] = nil
        let man = try runProgram("/usr/bin/man", ["-l", file], environment: environment)
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertEqual(man.stderr, "", "groff says nothing about the page")
        let text = man.stdout.replacingOccurrences(of: "\u{2010}", with: "-")
        XCTAssertTrue(text.contains("BUSKER(1)"), String(text.prefix(300)))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "KEYS", "EXIT STATUS", "ENVIRONMENT"] {
            XCTAssertTrue(text.contains("\n\(section)\n"), "section \(section)")
        }
        // The keys of both screens, from the tables the screens draw their key help from.
        let keys = String(text[(text.range(of: "\nKEYS\n")?.upperBound ?? text.endIndex)...])
        for words in ["busker live", "save preset", "learn MIDI", "mic on/off", "voice processing", "busker play", "octave", "all notes off"] {
            XCTAssertTrue(keys.contains(words), "the KEYS section names \(words)")
        }
        // Every option of every command's help is on the page, spelled as there.
        for name in try commands() {
            XCTAssertTrue(text.contains("busker \(name)"), name)
            let help = try runBusker([name, "--help"]).stdout
            for line in help.split(separator: "\n") where line.hasPrefix("  -") || line.hasPrefix("    -") || line.hasPrefix("      -") {
                let option = line.drop(while: { $0 == " " }).split(separator: " ").first.map(String.init) ?? ""
                XCTAssertTrue(text.contains(option), "busker \(name): \(option) is on the man page")
            }
        }
        let lint = try runProgram("/usr/bin/groff", ["-man", "-ww", "-z", "-K", "utf8", file])
        XCTAssertEqual(lint.status, 0)
        XCTAssertEqual(lint.stderr, "", "groff -ww warns of nothing")
    }

    /// What the completion offers for `line` (the cursor at its end), run in bash from `directory`.
    private func complete(_ line: String, in directory: String? = nil, environment extra: [String: String] = [:]) throws -> [String] {
        let script = path("busker.bash")
        if !FileManager.default.fileExists(atPath: script) {
            let made = try runBusker(["help", "--completion"])
            XCTAssertEqual(made.status, 0)
            try made.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = URL(fileURLWithPath: buskerPath).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment.merge(extra) { $1 }
        let command = """
        source "$1" || exit 3
        complete -p busker | grep -q -- '-F _busker busker' || exit 4
        cd "$3" || exit 5
        COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("") && COMP_CWORD=$(( COMP_CWORD + 1 ))
        _busker
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let r = try runProgram("/bin/bash", ["-c", command, "bash", script, line, directory ?? work.path], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func testCompletionOffersCommandsOptionsAndValues() throws {
        XCTAssertEqual(try complete("busker l"), ["live"])
        XCTAssertEqual(try complete("busker re"), ["render", "record", "repair"])
        XCTAssertEqual(try complete("busker live --dev"), ["--device"])
        XCTAssertEqual(try complete("busker render --sample"), ["--sample-format"])
        XCTAssertEqual(try complete("busker live --room "), ["small", "medium", "large", "hall"])
        XCTAssertEqual(try complete("busker record -f "), ["S16_LE", "S24_3LE", "FLOAT_LE"], "the formats a take accepts")
        XCTAssertEqual(try complete("busker render -f "), ["S16_LE", "S24_3LE", "S32_LE", "FLOAT_LE"])
        XCTAssertEqual(try complete("busker record --record-format f"), ["float", "flac"])
        XCTAssertEqual(try complete("busker live --gain "), [], "nothing to offer for a number")
        XCTAssertEqual(try complete("busker live --driver "), ["alsa", "jack"])
        XCTAssertEqual(try complete("busker help "), try commands())
        XCTAssertTrue(try complete("busker live -D ").contains("default"), "PCM names from busker devices --names")
        XCTAssertTrue(try complete("busker play --kit ").contains("Busker\\ Standard\\ Kit"), "kits from busker kits --names, escaped")
        for name in ["a.sf2", "b.mid", "c.txt"] { try Data().write(to: URL(fileURLWithPath: path(name))) }
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        XCTAssertEqual(Set(try complete("busker render ")), ["a.sf2", "b.mid", "folder/"], "SoundFonts, songs and folders")
        XCTAssertEqual(Set(try complete("busker play --soundfont ")), ["a.sf2", "folder/"])
    }

    func testCompletionOffersPresetAndInstrumentNames() throws {
        let config = path("config")
        try FileManager.default.createDirectory(atPath: config + "/busker", withIntermediateDirectories: true)
        for name in ["gig", "gig-loud", "rehearsal"] {
            try "[bus]\nvolume = 0.3\n".write(toFile: config + "/busker/\(name).preset", atomically: true, encoding: .utf8)
        }
        try Data().write(to: URL(fileURLWithPath: config + "/busker/notes.txt"))
        let presets = ["XDG_CONFIG_HOME": config]
        // In the order the shell's glob sorts them (by locale): compared as sets.
        XCTAssertEqual(Set(try complete("busker live --preset ", environment: presets)), ["gig", "gig-loud", "rehearsal"])
        XCTAssertEqual(Set(try complete("busker live --preset gi", environment: presets)), ["gig", "gig-loud"])
        XCTAssertEqual(try complete("busker play --instrument Acou"),
                       ["Acoustic\\ Grand\\ Piano", "Acoustic\\ Guitar\\ \\(nylon\\)", "Acoustic\\ Guitar\\ \\(steel\\)", "Acoustic\\ Bass"])
        XCTAssertEqual(try complete("busker render --instrument xy"), ["xylophone"])
        XCTAssertTrue(try complete("busker play --kit ").contains("Busker\\ Standard\\ Kit"), "kit names")
    }

    /// `Tools/install-cli-docs` installs the binary with its man page and
    /// completion, so `busker` and `man busker` agree, and says when the
    /// binary's folder is not on PATH.
    func testInstallCLIDocsInstallsTheBinaryBesideItsManPage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let prefix = path("prefix")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "/usr/bin:/bin"
        let r = try runProgram("/bin/bash", [root.appendingPathComponent("Tools/install-cli-docs").path, "--prefix", prefix, "--busker", buskerPath],
                               environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("busker: binary: \(prefix)/bin/busker"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\(prefix)/bin is not on your PATH"), r.stdout)
        let installed = try runProgram(prefix + "/bin/busker", ["--version"])
        XCTAssertEqual(installed.status, 0)
        XCTAssertEqual(installed.stdout, try runBusker(["--version"]).stdout)
        let page = try String(contentsOfFile: prefix + "/share/man/man1/busker.1", encoding: .utf8)
        XCTAssertEqual(page, try runProgram(prefix + "/bin/busker", ["help", "--man"]).stdout, "the page is the installed binary's")
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/share/bash-completion/completions/busker"))
        // Again, over the installed copy: no leftovers beside it.
        XCTAssertEqual(try runProgram("/bin/bash", [root.appendingPathComponent("Tools/install-cli-docs").path, "--prefix", prefix,
                                                    "--busker", buskerPath], environment: environment).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: prefix + "/bin"), ["busker"])
    }
}
