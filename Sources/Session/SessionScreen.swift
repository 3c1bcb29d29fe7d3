/// What a session runner needs of a full-screen terminal: give it back
/// before the process stops (Ctrl-Z), take it again after SIGCONT. While one
/// is attached, the runner's notices go to the screen instead of standard output.
public protocol SessionScreen: AnyObject {
    func enter()
    func restore()
}
