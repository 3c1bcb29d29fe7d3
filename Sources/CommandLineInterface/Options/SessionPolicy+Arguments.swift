import Session

extension SessionPolicy {
    /// `--auto-resume` and `--reconnect` (busker live and busker play). Without
    /// a screen (`--no-tui`, or no terminal) no key can restart audio: the
    /// policy is headless.
    /// - Parameter interactive: whether standard input and output are a terminal.
    public init(arguments args: ArgumentScanner, interactive: Bool) {
        self.init(autoResume: args.has("auto-resume"), reconnect: args.has("reconnect"),
                  headless: args.has("no-tui") || !interactive)
    }
}
