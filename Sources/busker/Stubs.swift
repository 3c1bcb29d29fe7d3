enum LiveCommand { static let help = ""; static func run(_ a: [String]) throws {} }
enum BenchCommand { static let help = ""; static func run(_ a: [String]) throws {} }
