import Foundation
import Stages

// A seeded, deterministic generator of pipeline descriptions "as users really write them": it starts
// from valid descriptions (README and docs/ examples, pipelines/*.pipeline, stages and elements mixed, tees,
// references, bins, caps, several chains, long chains) and mutates them — tokens dropped, duplicated,
// swapped; `!`, `.`, `(`, `)`, `,`, `=` and quotes inserted; odd values for every property type
// (empty, negative, huge, 10k characters, NaN, unicode, `%`, paths, URLs); dangling references;
// unknown elements. Used by GeneratedDescriptionTests (in-process, HostTests) and GeneratedRunTests
// (the real binary, ViewfinderTests), through the TestSupport target.

/// SplitMix64: a tiny seeded generator, so every run generates the same descriptions.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public struct DescriptionGenerator {
    /// How the descriptions will be used.
    public enum Mode {
        /// Parsed, planned and built in the test process: writing properties stay under the temp directory.
        case inProcess
        /// Run by the binary (current directory = the temp directory): sources are bounded, no display sinks.
        case run
    }

    public let mode: Mode
    /// The temp directory paths are put under (created and removed by the caller).
    public let tmp: String
    private var rng: SplitMix64

    public init(seed: UInt64, mode: Mode, tmp: String) {
        self.mode = mode
        self.tmp = tmp
        rng = SplitMix64(seed: seed)
    }

    public static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    // MARK: corpus

    /// Valid descriptions to start from; `@T` is the temp directory.
    public static let handWritten: [String] = [
        "videotestsrc num-buffers=5 ! fakesink",
        "videotestsrc num-buffers=5 ! passthrough ! identity ! passthrough ! fakesink",
        "videotestsrc num-buffers=5 ! grid lines=thirds ! videoconvert ! fakesink",
        "videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240 ! grid lines=golden+crosshair color=#ff0000 width=3 ! fakesink",
        "videotestsrc num-buffers=5 ! tee name=t t. ! queue ! grid ! fakesink t. ! queue ! fakesink",
        "videotestsrc num-buffers=5 ! snapshot name=s at=1,3 location=@T/shot-%05d.jpg ! fakesink",
        "videotestsrc num-buffers=5 ! snapshot name=s interval=1 ! fakesink s.snapshot ! queue ! jpegenc ! multifilesink location=@T/s-%05d.jpg",
        "videotestsrc num-buffers=5 ! capture directory=@T/photos auto=false at=2 crop=3:4 keep-full=true ! fakesink",
        "videotestsrc num-buffers=5 ! capture name=c directory=@T/c at=1 ! fakesink c.thumbnail ! queue ! fakesink",
        "videotestsrc num-buffers=5 ! compose engine=saliency rule=thirds metadata-location=@T/compose.jsonl ! fakesink",
        "videotestsrc num-buffers=5 ! compose engine=upstream ! capture directory=@T/p auto=false ! ringlight preset=warm-cream ! fakesink",
        "videotestsrc num-buffers=5 ! video/x-raw,format=RGBA ! chromakey color=#00ff00 mode=matte ! videoconvert ! fakesink",
        "videotestsrc num-buffers=5 ! ringlight preset=custom color=#ff00ff width=20 opacity=50 enabled=true ! fakesink",
        "videotestsrc num-buffers=5 ! grid ! queue ! ringlight ! identity ! passthrough ! videoconvert ! fakesink",
        "videotestsrc num-buffers=5 ! g. grid name=g ! fakesink",
        "videotestsrc num-buffers=5 ! passthrough name=p p. ! queue ! fakesink",
        "( videotestsrc num-buffers=5 ! queue ) ! grid ! fakesink",
        "bin.( name=b videotestsrc num-buffers=5 ! queue ) ! videoconvert ! fakesink",
        "videotestsrc num-buffers=5 ! video/x-raw,format={I420,NV12},width=[16,640] ! grid ! fakesink audiotestsrc num-buffers=5 ! fakesink",
        "videotestsrc num-buffers=5 ! compositor name=comp ! videoconvert ! fakesink videotestsrc num-buffers=5 ! grid ! comp.sink_1",
        "videotestsrc num-buffers=5 ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location=@T/out.mp4",
        "videotestsrc num-buffers=5 ! grid ! jpegenc ! multifilesink location=@T/g-%05d.jpg",
        "videotestsrc num-buffers=5 ! videoconvert ! grid ! videoconvert ! identity silent=true ! fakesink sync=false",
        "filesrc location=.testdata/astronaut.png ! decodebin ! videoconvert ! imagefreeze num-buffers=5 ! grid ! videoconvert ! fakesink",
        "videotestsrc num-buffers=5 ! grid name=\"my grid\" ! fakesink",
        "videotestsrc num-buffers=5 ! snapshot location=\"@T/a b %05d.jpg\" at=0 ! fakesink",
    ]

    /// README and docs/*.md examples and pipelines/*.pipeline, with display sinks and written paths made harmless.
    public static func corpus() -> [String] {
        var out = handWritten
        let docs = root.appendingPathComponent("docs")
        let pages = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        let readme = ([root.appendingPathComponent("README.md")] + pages.map { docs.appendingPathComponent($0) })
            .map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
        for line in readme.split(separator: "\n") {
            guard let open = line.range(of: "launch '"), let close = line[open.upperBound...].firstIndex(of: "'") else { continue }
            out.append(String(line[open.upperBound..<close]))
        }
        let dir = root.appendingPathComponent("pipelines")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".pipeline") }.sorted()
        for f in files {
            guard let text = try? String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
            out.append(lines.joined(separator: " "))
        }
        return out.map { d in
            d.replacingOccurrences(of: "autovideosink", with: "fakesink")
                .replacingOccurrences(of: "out/", with: "@T/")
                .replacingOccurrences(of: "in.mp4", with: "@T/in.mp4")
                .replacingOccurrences(of: "shots/", with: "@T/")
                .replacingOccurrences(of: "v4l2src", with: "videotestsrc")
        }
    }

    // MARK: values

    static let longValue = String(repeating: "x", count: 10_000)

    /// Odd values any property may get, whatever its type.
    static let oddCommon: [String] = [
        "", "-1", "0", "-0", "99999999999999999999", "1e308", "-1e308", "1e-400", "NaN", "nan", "inf", "-inf",
        "2147483648", "-2147483649", "0x10", "1.5", "%", "%s%n%x", "%05d", "é漢字🎥", "\u{200B}", "a", ".", "..", "a/", "/",
        "/etc/passwd/x", "/dev/null/x", "/proc/nope/x", "/dev/full", "http://example.invalid/x", "file:///dev/null", "rtsp://[::1]:0/x",
        "#", "true", "yes", "a b", "\\", "'", "\"", "!", "=", ",", "(", ")", "{", "[1,2]", ";", "name", longValue,
    ]

    /// Odd values for a stage property of `type`.
    static func odd(for type: PropertyType) -> [String] {
        switch type {
        case .bool:
            return ["yes", "On", "2", "tru", "TRUE", "0", "-1"]
        case .int(let r):
            return [
                String(r.lowerBound - 1), String(r.upperBound + 1), String(r.lowerBound), String(r.upperBound),
                String(Int.max), String(Int.min), "1.0", "+1", "01", "1_000",
            ]
        case .double(let r):
            return [
                String(r.lowerBound - 0.001), String(r.upperBound * 10 + 1), String(r.lowerBound), String(r.upperBound),
                "-0.0", "0x1p3", ".5", "5.", "1e400", "-nan", "4.9e-324",
            ]
        case .string:
            return ["", "%", "%05d", "a", ".", "a/", "/etc/passwd/x", "http://example.invalid/x", longValue, "é漢字🎥"]
        case .choice(let c):
            return c.flatMap { [$0.uppercased(), $0 + "x", " " + $0] } + [c.joined(separator: "+"), ""]
        case .set(let c):
            return [
                "+", "++", c.joined(separator: "+"), c.joined(separator: ","), (c.first ?? "") + "+", "+" + (c.last ?? ""), "none+bogus",
            ]
        case .color:
            return ["#", "#12", "#1234567", "#gggggg", "red", "RED", "#ffffffff00", "transparent", "0xff00ff00", "#-10000"]
        case .intList:
            return [",", "1,,2", "-1", "1, 2", "99999999999999999999", "1;2", "0,0,0", ",1", "1,"]
        }
    }

    /// Properties that create files or directories when the stage is made (before anything runs).
    static let writtenAtInit: Set<String> = ["directory", "metadata-location"]

    static let elements = [
        "videotestsrc", "fakesink", "queue", "identity", "tee", "videoconvert", "videoscale", "capsfilter", "jpegenc",
        "multifilesink", "filesink", "filesrc", "decodebin", "audiotestsrc", "compositor", "appsrc", "appsink",
        "grid", "compose", "capture", "snapshot", "ringlight", "chromakey", "reframe", "passthrough",
        "nosuchelement", "Grid", "grid2", "gridd", "snapshot0", "x", "bin", "valve",
    ]

    static let keys = [
        "name", "location", "num-buffers", "caps", "pattern", "is-live", "sync", "max-size-buffers", "bogus",
        "sink_0::zorder", "silent", "lines", "at", "interval", "directory", "metadata-location", "engine", "drop",
    ]

    // MARK: generation

    private mutating func pick<T>(_ a: [T]) -> T { a[Int.random(in: 0..<a.count, using: &rng)] }
    private mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    /// The `index`-th description: a corpus entry, a long chain, or either mutated 1 to 4 times.
    public mutating func next(corpus: [String]) -> String {
        var text: String
        if chance(0.05) {
            text = longChain()
        } else {
            text = pick(corpus)
        }
        var tokens = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // Runs are few and slow: fewer, mostly semantic mutations, so more of them really run.
        let mutations = mode == .run ? pick([0, 0, 1, 1, 1, 2]) : chance(0.08) ? 0 : pick([1, 1, 1, 2, 2, 3, 4])
        for _ in 0..<mutations { mutate(&tokens) }
        text = tokens.joined(separator: chance(0.1) ? "  " : " ")
        text = text.replacingOccurrences(of: "@T", with: tmp)
        if mode == .run { text = boundSources(text) }
        return text
    }

    /// 100 elements (stages and elements mixed) in one chain.
    private mutating func longChain() -> String {
        let middle = ["identity", "queue", "passthrough", "grid", "videoconvert", "ringlight", "identity silent=true"]
        var parts = ["videotestsrc num-buffers=3"]
        for _ in 0..<98 { parts.append(pick(middle)) }
        parts.append("fakesink")
        return parts.joined(separator: " ! ")
    }

    private mutating func mutate(_ tokens: inout [String]) {
        if tokens.isEmpty { tokens = ["videotestsrc"] }
        let i = Int.random(in: 0..<tokens.count, using: &rng)
        let kind = mode == .run ? pick([5, 6, 12, 13, 7, 7, 8, 9, 0, 1, 11, 3]) : Int.random(in: 0..<15, using: &rng)
        switch kind {
        case 0:  // drop
            tokens.remove(at: i)
        case 1:  // duplicate
            tokens.insert(tokens[i], at: i)
        case 2:  // swap
            let j = Int.random(in: 0..<tokens.count, using: &rng)
            tokens.swapAt(i, j)
        case 3:  // insert punctuation as a token
            tokens.insert(pick(["!", ".", "(", ")", ",", "=", "\"", "'", "! !", "x.", ":", "\\", "#"]), at: i)
        case 4:  // punctuation glued into a token
            var t = Array(tokens[i])
            t.insert(pick(["!", ".", "(", ")", ",", "=", "\"", "'", " "]), at: Int.random(in: 0...t.count, using: &rng))
            tokens[i] = String(t)
        case 5, 6, 12, 13, 14:  // odd value for a property (typed for stages)
            oddValue(&tokens)
        case 7:  // a new property on some element
            let key = pick(Self.keys)
            let value = pick(Self.oddCommon + ["5", "t", "thirds", "@T/new-%05d.jpg"])
            tokens.insert(key + "=" + written(value, key: key), at: min(i + 1, tokens.count))
        case 8:  // dangling reference
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: tokens += ["x.", "!", "fakesink"]
            case 1: tokens += ["videotestsrc", "num-buffers=5", "!", "nosuch.sink"]
            default: tokens.insert(pick(["x.", "s.nope", "t.src_%u", "grid0.", "c.full", "p."]), at: i)
            }
        case 9:  // unknown or other element in place of one
            tokens[i] = pick(Self.elements)
        case 10:  // a bin around part of it
            let j = Int.random(in: i..<tokens.count, using: &rng)
            tokens.insert(")", at: j + 1)
            tokens.insert(pick(["(", "bin.(", "( name=b"]), at: i)
        default:  // another chain appended or a link removed/added
            if chance(0.5) {
                tokens += pick([
                    ["videotestsrc", "num-buffers=5", "!", "fakesink"], ["audiotestsrc", "num-buffers=5", "!", "fakesink"],
                    ["videotestsrc", "num-buffers=5", "!", "grid", "!", "fakesink"],
                ])
            } else if let bang = tokens.indices.filter({ tokens[$0] == "!" }).randomElement(using: &rng) {
                tokens.remove(at: bang)
            } else {
                tokens.insert("!", at: i)
            }
        }
    }

    /// Replaces the value of a `key=value` token (or adds one to a stage) with an odd value for its type.
    private mutating func oddValue(_ tokens: inout [String]) {
        let assignments = tokens.indices.filter { tokens[$0].contains("=") && !tokens[$0].hasPrefix("=") }
        // The stage (if any) the assignment belongs to: the nearest element word before it.
        func owner(_ k: Int) -> (any Stage.Type)? {
            var j = k - 1
            while j >= 0, tokens[j].contains("=") { j -= 1 }
            return j >= 0 ? StageRegistry.type(of: tokens[j]) : nil
        }
        if let k = assignments.randomElement(using: &rng) {
            let t = tokens[k]
            guard let equals = t.firstIndex(of: "=") else { return }
            let key = String(t[..<equals])
            var values = Self.oddCommon
            if let stage = owner(k), let spec = stage.descriptor.properties.first(where: { $0.name == key }) {
                values = Self.odd(for: spec.type) + (chance(0.3) ? Self.oddCommon : [])
            }
            tokens[k] = key + "=" + written(pick(values), key: key)
            return
        }
        // No assignment: give a stage one of its properties with an odd value.
        guard let s = tokens.indices.first(where: { StageRegistry.type(of: tokens[$0]) != nil }),
            let stage = StageRegistry.type(of: tokens[s]), !stage.descriptor.properties.isEmpty
        else { return }
        let spec = pick(stage.descriptor.properties)
        tokens.insert(spec.name + "=" + written(pick(Self.odd(for: spec.type)), key: spec.name), at: s + 1)
    }

    /// A value as written: bare, double-quoted or single-quoted; paths that would be written when a stage
    /// is made go under the temp directory in-process.
    private mutating func written(_ value: String, key: String) -> String {
        var v = value
        if Self.writtenAtInit.contains(key) { v = Self.harmlessWrittenPath(v, tmp: "@T", mode: mode) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return "\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case 1: return "'" + v + "'"
        default: return v
        }
    }

    /// `path` if making a stage with it writes nothing outside `tmp` (a path under it, or one that cannot
    /// be created), else the same path under `tmp`: in-process relative paths would land in the package
    /// directory; in `.run` mode relative paths land in `tmp` (the current directory) and absolute ones
    /// become relative.
    public static func harmlessWrittenPath(_ path: String, tmp: String, mode: Mode) -> String {
        if path.isEmpty { return path }
        for failing in ["/etc/passwd/", "/dev/null/", "/proc/nope/", "/dev/full"] where path.hasPrefix(failing) { return path }
        let p = path.replacingOccurrences(of: "..", with: "_dd_")
        if p.hasPrefix(tmp + "/") { return p }
        if mode == .run { return p.hasPrefix("/") ? String(p.drop { $0 == "/" }) : p }
        return tmp + "/" + p
    }

    /// In `.run` mode every test source gets a small num-buffers after its last property, so valid
    /// descriptions end on their own.
    private func boundSources(_ text: String) -> String {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        var i = 0
        while i < words.count {
            if words[i] == "videotestsrc" || words[i] == "audiotestsrc" {
                var j = i + 1
                while j < words.count, words[j].contains("="), !words[j].hasPrefix("!") { j += 1 }
                words.insert("num-buffers=5", at: j)
                i = j
            }
            i += 1
        }
        return words.joined(separator: " ")
    }
}

// MARK: - what an exit-2 message must name

public enum MessageCheck {
    static func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "-" }

    /// The words of a description: the text between whitespace and gst-launch punctuation (`!`, `(`,
    /// `)`, `=`, `,`, `"`, `'`, `\\`), keeping only those with a letter or digit.
    static func words(of description: String) -> [String] {
        description.split(whereSeparator: { $0.isWhitespace || "!()=,\"'\\".contains($0) })
            .map(String.init).filter { $0.contains { $0.isLetter || $0.isNumber } }
    }

    /// A "token" of a description, for "every exit-2 message names a token from the description":
    /// one of its words (above) appearing in the message as a whole word (not inside a longer
    /// identifier), or a word followed by digits (`grid0`, `identity3`: the names the host and
    /// GStreamer give unnamed elements); or a punctuation character of the description quoted in the
    /// message (`'!'`, `'('`, `'"'`, `'.src'`). An empty description passes when the message says so.
    public static func namesToken(_ message: String, description: String) -> Bool {
        if description.allSatisfy(\.isWhitespace) { return message.contains("empty") }
        for c in Set(description) where !isWordChar(c) && !c.isWhitespace && message.contains("'" + String(c)) {
            return true
        }
        let ws = words(of: description)
        let chars = Array(message)
        for word in Set(ws) {
            let w = Array(word)
            guard w.count <= chars.count else { continue }
            var i = 0
            while i + w.count <= chars.count {
                if Array(chars[i..<(i + w.count)]) == w {
                    let before = i == 0 || !isWordChar(chars[i - 1]) || !isWordChar(w[0])
                    var end = i + w.count
                    while end < chars.count, chars[end].isNumber, let last = w.last, !last.isNumber { end += 1 }
                    let after = end == chars.count || !isWordChar(chars[end]) || !isWordChar(w[w.count - 1])
                    if before && after { return true }
                }
                i += 1
            }
        }
        return false
    }
}
