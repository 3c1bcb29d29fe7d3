import CALSA

/// Where PCM names are looked up.
///
/// `.system` is what every ALSA program does: `/usr/share/alsa/alsa.conf`,
/// `/etc/asound.conf`, `~/.asoundrc`, or whatever `ALSA_CONFIG_PATH` names.
/// The other two let a program (a test, Tools/virtual-soundcard's users)
/// define PCMs without touching the environment or any file:
/// `.extending(text)` adds definitions on top of the system configuration,
/// `.only(text)` uses nothing but them (no `null`, no `default` unless the
/// text defines them). Either way the text uses asoundrc syntax.
public enum ALSAConfiguration: Sendable, Hashable {
    case system
    case extending(String)
    case only(String)

    /// Builds the configuration tree to open PCMs with; nil for `.system`.
    /// - Realtime: unsafe (allocates). Control thread only.
    func makeTree() throws(ALSAError) -> ALSAConfigurationTree? {
        switch self {
        case .system:
            return nil
        case .extending(let text):
            ALSALibrary.captureMessages()
            // A private copy of the global tree: loading into it must not
            // change what other PCMs in this process see.
            var global: OpaquePointer?
            var rc = snd_config_update_ref(&global)
            guard rc >= 0, let global else {
                throw .invalidConfiguration(detail: "cannot read the system ALSA configuration: \(ALSALibrary.describe(rc))")
            }
            defer { snd_config_unref(global) }
            var copy: OpaquePointer?
            rc = snd_config_copy(&copy, global)
            guard rc >= 0, let copy else {
                throw .invalidConfiguration(detail: "cannot copy the system ALSA configuration: \(ALSALibrary.describe(rc))")
            }
            let tree = ALSAConfigurationTree(root: copy)
            try tree.load(text)
            return tree
        case .only(let text):
            ALSALibrary.captureMessages()
            var top: OpaquePointer?
            let rc = snd_config_top(&top)
            guard rc >= 0, let top else {
                throw .invalidConfiguration(detail: "snd_config_top: \(ALSALibrary.describe(rc))")
            }
            let tree = ALSAConfigurationTree(root: top)
            try tree.load(text)
            return tree
        }
    }
}

/// An owned libasound configuration tree (`snd_config_t`), deleted with this object.
/// - Realtime: unsafe; control thread only.
final class ALSAConfigurationTree: @unchecked Sendable {
    let root: OpaquePointer

    init(root: OpaquePointer) { self.root = root }

    deinit { snd_config_delete(root) }

    /// Parses asoundrc-syntax `text` into the tree; later definitions override earlier ones.
    func load(_ text: String) throws(ALSAError) {
        var input: OpaquePointer?
        // libasound copies the text (size -1: up to the terminating NUL).
        let rc = text.withCString { snd_input_buffer_open(&input, $0, -1) }
        guard rc >= 0, let input else {
            throw .invalidConfiguration(detail: "snd_input_buffer_open: \(ALSALibrary.describe(rc))")
        }
        defer { snd_input_close(input) }
        let loaded = snd_config_load(root, input)
        if loaded < 0 {
            let message = ALSALibrary.takeLastMessage()
            throw .invalidConfiguration(detail: message.isEmpty ? ALSALibrary.describe(loaded) : message)
        }
    }
}
