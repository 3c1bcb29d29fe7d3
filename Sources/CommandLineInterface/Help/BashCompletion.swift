import Instruments

/// Busker's bash completion script, made from the commands' help texts
/// (`CommandHelp`): commands, every option each declares, and for values the
/// `CompletionKind` of the option: PCM names from `busker devices --names`,
/// kits from `busker kits --names`, saved presets, instrument names,
/// SoundFonts, MIDI and audio files, words.
/// Needs plain bash only (not the bash-completion package).
public struct BashCompletion {
    public var commands: [CommandHelp]
    /// Options taken before any command (`--help`, `--version`).
    public var topLevelOptions: [String]

    public init(commands: [CommandHelp], topLevelOptions: [String]) {
        self.commands = commands
        self.topLevelOptions = topLevelOptions
    }

    /// The script: source it, or install it as
    /// `$XDG_DATA_HOME/bash-completion/completions/busker`.
    public var script: String {
        var valueCases: [String] = []
        var optionCases: [String] = []
        var positionalCases: [String] = []
        for command in commands {
            let options = command.options
            var byKind: [(CompletionKind, [String])] = []
            for option in options where option.takesValue && !option.valueIsOptional {
                let kind = CompletionKind.forValue(of: option)
                let patterns = option.spellings.map { "\"\(command.name) \($0)\"" }
                if let index = byKind.firstIndex(where: { $0.0 == kind }) {
                    byKind[index].1 += patterns
                } else {
                    byKind.append((kind, patterns))
                }
            }
            for (kind, patterns) in byKind {
                valueCases.append("        \(patterns.joined(separator: "|"))) \(Self.call(kind)); return ;;")
            }
            let spellings = (["-h", "--help"] + options.flatMap(\.spellings)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            optionCases.append("        \(command.name)) words=\"\(spellings.joined(separator: " "))\" ;;")
            positionalCases.append("        \(command.name)) \(Self.call(command.positionals)) ;;")
        }
        let names = commands.map(\.name).joined(separator: " ")
        return """
        # bash completion for busker(1). Made by `busker help --completion` from the
        # commands' --help texts; do not edit. Install: Tools/install-cli-docs.

        # Adds the words of stdin (one a line) that start with $cur, escaped for the shell.
        _busker_words() {
            local cur=$1 word
            while IFS= read -r word; do
                [[ -n $word && $word == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$word")")
            done
        }

        # Adds folders and the files with one of the extensions given (any file when none).
        _busker_files() {
            local cur=$1 path ext
            shift
            while IFS= read -r path; do
                if [[ -d $path ]]; then
                    COMPREPLY+=("$path/")
                elif (( $# == 0 )); then
                    COMPREPLY+=("$path")
                else
                    for ext in "$@"; do
                        if [[ ${path,,} == *."$ext" ]]; then COMPREPLY+=("$path"); break; fi
                    done
                fi
            done < <(compgen -f -- "$cur")
            compopt -o filenames -o nospace 2>/dev/null
        }

        # Adds the names of the presets saved where busker live looks for them.
        _busker_presets() {
            local cur=$1 path name folder=${XDG_CONFIG_HOME:-}
            [[ $folder == /* ]] || folder=$HOME/.config
            for path in "$folder"/busker/*.preset; do
                [[ -f $path ]] || continue
                name=${path##*/}
                name=${name%.preset}
                [[ $name == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
            done
        }

        # Fills COMPREPLY for the words before the cursor, split at spaces (so
        # hw:1,0 and CLIENT:PORT stay whole whatever COMP_WORDBREAKS says).
        _busker_complete() {
            local line=${COMP_LINE:0:COMP_POINT} cur prev busker cmd words
            local -a w
            read -ra w <<< "$line"
            [[ -z $line || $line == *[[:space:]] ]] && w+=("")
            cur=${w[-1]} busker=${w[0]} cmd=${w[1]:-}
            prev=${w[-2]:-}
            if (( ${#w[@]} == 2 )); then
                _busker_words "$cur" < <(printf '%s\\n' \(names) \(topLevelOptions.joined(separator: " ")))
                return
            fi
            case "$cmd $prev" in
        \(valueCases.joined(separator: "\n"))
            esac
            if [[ $cur == -* ]]; then
                case $cmd in
        \(optionCases.joined(separator: "\n"))
                    *) words="-h --help" ;;
                esac
                _busker_words "$cur" < <(printf '%s\\n' $words)
                return
            fi
            case $cmd in
        \(positionalCases.joined(separator: "\n"))
            esac
        }

        _busker() {
            COMPREPLY=()
            _busker_complete
            # bash replaces only the part of the word after its last colon.
            local cur=${COMP_LINE:0:COMP_POINT}
            cur=${cur##*[[:space:]]}
            if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
                local i prefix=${cur%:*}:
                for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}; done
            fi
        }

        complete -F _busker busker

        """
    }

    /// The shell code that completes a value of this kind into COMPREPLY.
    static func call(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: return ":"
        case .files(let extensions): return (["_busker_files \"$cur\""] + extensions).joined(separator: " ")
        case .pcm: return "_busker_words \"$cur\" < <(\"$busker\" devices --names 2>/dev/null)"
        case .kit: return "_busker_words \"$cur\" < <(\"$busker\" kits --names 2>/dev/null); _busker_files \"$cur\""
        case .words(let words): return "_busker_words \"$cur\" < <(printf '%s\\n' \(words.joined(separator: " ")))"
        case .commands: return "_busker_words \"$cur\" < <(\"$busker\" help --commands 2>/dev/null)"
        case .preset: return "_busker_presets \"$cur\""
        case .instrument:
            let names = (GeneralMIDI.programAliases.keys.sorted() + GeneralMIDI.programNames).map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }
            return "_busker_words \"$cur\" < <(printf '%s\\n' \(names.joined(separator: " ")))"
        }
    }
}
