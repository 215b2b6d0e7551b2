import Host

/// One kind of `viewfinder bench WHAT`: its word, the arguments it takes and what it prints.
/// `BenchCommand` finds the kind by its word, has it check the arguments, makes it and runs it.
protocol BenchKind: Sendable {
    /// The word after `bench`.
    static var name: String { get }
    /// Whether `--seconds` applies (default: no).
    static var takesSeconds: Bool { get }
    /// Refuses what this kind does not take and bad values (usage errors, exit 2), before anything runs.
    /// The default: the common checks (`--frames`, `--rounds`, `--seconds`), then no count and no `--max`.
    static func check(_ arguments: BenchArguments) throws(HostError)
    /// Keeps what `run` needs from arguments `check` accepted.
    init(_ arguments: BenchArguments)
    /// Measures and prints the figures on stdout.
    func run() throws
}

extension BenchKind {
    static var takesSeconds: Bool { false }

    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        try arguments.refuseCount()
    }

    /// Checks the arguments, then measures and prints.
    static func measure(_ arguments: BenchArguments) throws {
        try check(arguments)
        try Self(arguments).run()
    }
}

/// `bench`'s arguments as parsed, whatever the kind.
struct BenchArguments {
    var what: String
    var count: Int?
    var frames: Int
    var rounds: Int
    var video: String?
    /// `--photos` (bench faces only): how many of the labelled photos its recall uses, nil for all.
    var photos: Int?
    var seconds: Double?
    var searchMax: Bool
    /// `--json` (bench reframe only): the figures as JSON instead of the table.
    var json: Bool = false

    /// Every kind's checks, in this order: `--frames`, `--rounds`, then `--seconds` (refused unless the kind
    /// `takesSeconds`, else its range).
    func checkCommon(takesSeconds: Bool) throws(HostError) {
        guard (1...100_000).contains(frames) else { throw HostError(.usage, "bad value '\(frames)' for --frames: expected 1 - 100000") }
        guard (1...100).contains(rounds) else { throw HostError(.usage, "bad value '\(rounds)' for --rounds: expected 1 - 100") }
        if let seconds {
            guard takesSeconds else {
                throw HostError(.usage, "--seconds is for bench latency, bench streams, bench rtsp, bench cameras and bench clips only")
            }
            guard seconds.isFinite && (0.5...3600).contains(seconds) else {
                throw HostError(.usage, "bad value '\(seconds)' for --seconds: expected 0.5 - 3600")
            }
        }
    }

    /// Refuses a count and `--max` (only `bench streams` takes them), `--photos` unless `takesPhotos` and `--json`
    /// unless `takesJSON`.
    func refuseCount(takesPhotos: Bool = false, takesJSON: Bool = false) throws(HostError) {
        if let count { throw HostError(.usage, "unexpected '\(count)' after 'bench \(what)': only bench streams and bench cameras take a count") }
        if searchMax { throw HostError(.usage, "--max is for bench streams only") }
        if photos != nil && !takesPhotos { throw HostError(.usage, "--photos is for bench faces only") }
        if json && !takesJSON { throw HostError(.usage, "--json is for bench reframe only") }
    }
}
