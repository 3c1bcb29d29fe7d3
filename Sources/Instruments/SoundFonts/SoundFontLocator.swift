#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Finds the SoundFont to load without configuration.
///
/// The order: the path given on the command line (`--soundfont`), then
/// `$BUSKER_SOUNDFONT`, then the standard places Debian's packages install to
/// (`fluid-soundfont-gm` provides FluidR3_GM and the `default-GM.sf2`
/// alternative). A path the user gave explicitly (option or variable) must
/// exist: Busker says so rather than silently playing another font. Only the
/// standard places are tried in turn.
/// - Realtime: unsafe (file system). Control thread.
public struct SoundFontLocator: Sendable {
    public static let environmentVariable = "BUSKER_SOUNDFONT"

    /// Where distributions put a General MIDI SoundFont, most specific first.
    public static let standardPaths = [
        "/usr/share/sounds/sf2/default-GM.sf2",
        "/usr/share/sounds/sf2/FluidR3_GM.sf2",
        "/usr/share/soundfonts/default.sf2",
        "/usr/share/soundfonts/FluidR3_GM.sf2",
    ]

    /// A SoundFont found, and how.
    public struct Location: Equatable, Sendable, CustomStringConvertible {
        public enum Origin: Equatable, Sendable {
            case commandLine
            case environment
            case standardPath
        }

        public var path: String
        public var origin: Origin

        public init(path: String, origin: Origin) {
            self.path = path
            self.origin = origin
        }

        public var description: String {
            switch origin {
            case .commandLine: return path
            case .environment: return "\(path) (from $\(SoundFontLocator.environmentVariable))"
            case .standardPath: return "\(path) (default)"
            }
        }
    }

    public var environment: [String: String]
    public var standardPaths: [String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                standardPaths: [String] = SoundFontLocator.standardPaths) {
        self.environment = environment
        self.standardPaths = standardPaths
    }

    /// The SoundFont to use. It only checks that the file exists; loading
    /// checks that it is a SoundFont.
    /// - Parameter explicitPath: `--soundfont`, if given.
    /// - Throws: `SamplerError.soundFontNotFound` for a missing explicit path,
    ///   `SamplerError.noSoundFontInstalled` when nothing is found.
    public func locate(explicitPath: String? = nil) throws -> Location {
        if let explicitPath, !explicitPath.isEmpty {
            guard Self.fileExists(explicitPath) else {
                throw SamplerError.soundFontNotFound(path: explicitPath, origin: "--soundfont")
            }
            try Self.refuseUnlessReadable(explicitPath)
            return Location(path: explicitPath, origin: .commandLine)
        }
        if let fromEnvironment = environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            guard Self.fileExists(fromEnvironment) else {
                throw SamplerError.soundFontNotFound(path: fromEnvironment, origin: "$\(Self.environmentVariable)")
            }
            try Self.refuseUnlessReadable(fromEnvironment)
            return Location(path: fromEnvironment, origin: .environment)
        }
        for path in standardPaths where Self.fileExists(path) {
            return Location(path: path, origin: .standardPath)
        }
        throw SamplerError.noSoundFontInstalled(searched: standardPaths)
    }

    /// Throws for a FIFO, device or socket, which FluidSynth would wait on
    /// forever; a directory is left for loading to name.
    static func refuseUnlessReadable(_ path: String) throws(SamplerError) {
        if let why = RegularFile.problem(path), !why.hasPrefix("is a directory") {
            throw .soundFontUnreadable(path: path, reason: why)
        }
    }

    /// True for anything but a missing path or a dangling symbolic link
    /// (`default-GM.sf2` is one when its alternative is removed). A directory
    /// counts as existing, so that loading names the real problem.
    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
