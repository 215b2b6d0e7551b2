import Foundation
import Host
import Testing

@testable import Control

/// The pipelines API's bodies: what each refusal says and names, and no input that traps (seeded mutations of good
/// bodies, huge numbers, deep nesting, bytes that are not UTF-8).
struct PipelineRequestTests {
    static func store() throws -> CameraStore {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-request-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return try CameraStore(directory: dir.path)
    }

    static func refusal(_ body: String, store: CameraStore) -> PipelineRequestError? {
        do {
            _ = try PipelineRequest.decode(Data(body.utf8), store: store)
            return nil
        } catch { return error }
    }

    @Test func aGoodBodyGivesTheSpecAndItsSettings() throws {
        let store = try Self.store()
        let (spec, start) = try PipelineRequest.decode(
            Data(#"{"name": "door", "description": "videotestsrc ! grid ! fakesink", "settings": {"restart": "always"}, "start": false}"#.utf8),
            store: store)
        #expect(spec.name == "door" && spec.description == "videotestsrc ! grid ! fakesink" && !start)
        #expect(spec.restart == .always)
        #expect(spec.settings?.path == store.settingsFile("door"))
        #expect(try PipelineRequest.source(Data(#"{"description": "v4l2src ! videoconvert"}"#.utf8)) == "v4l2src ! videoconvert")
    }

    @Test(arguments: [
        ("", "empty body: expected a JSON object", nil),
        ("[1]", "got an array: expected a JSON object", nil),
        (#"{"name": 3, "description": "x"}"#, "'name' must be a string, got a number", "name"),
        (#"{"name": "Door", "description": "x"}"#, "bad pipeline name 'Door'", "name"),
        (#"{"name": "door"}"#, "'description' must be a string (a gst-launch description), got nothing", "description"),
        (#"{"name": "door", "description": "  "}"#, "'description' is empty", "description"),
        (#"{"name": "door", "description": "x", "colour": 1}"#, "unknown field 'colour': expected name, description, settings, start", "colour"),
        (#"{"name": "door", "description": "x", "start": "yes"}"#, "'start' must be a boolean, got a string", "start"),
        (#"{"name": "door", "description": "x", "settings": {"restart": "sometimes"}}"#, "bad value 'sometimes' for 'restart'", "settings"),
        (#"{"name": "door", "description": "x", "settings": [1]}"#, "expected a JSON object at the top", "settings"),
        (#"{"name": "door", "description": 1e400}"#, "bad JSON", nil),
    ] as [(String, String, String?)])
    func refusalsSayWhatWasExpected(body: String, message: String, field: String?) throws {
        let e = try #require(Self.refusal(body, store: try Self.store()))
        #expect(e.kind == .invalid)
        #expect(e.message.contains(message), "\(e.message)")
        #expect(e.field == field)
    }

    @Test func limitsHoldBeforeDecoding() throws {
        let store = try Self.store()
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let nested = Self.refusal(deep, store: store)?.message ?? ""
        #expect(nested.hasPrefix("JSON nested") && nested.contains("levels deep refused: at most 16"), "\(nested)")
        let big = #"{"name": "door", "description": ""# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(Self.refusal(big, store: store)?.message.hasPrefix("body of \(big.utf8.count) bytes refused: at most 65536") == true)
        let long = #"{"name": "door", "description": ""# + String(repeating: "a", count: 20_000) + #""}"#
        #expect(Self.refusal(long, store: store)?.message == "'description' of 20000 characters refused: at most 16384")
    }

    /// Seeded mutations (bytes replaced, inserted, cut) of good bodies: each is taken or refused with a message, none traps.
    @Test func mutatedBodiesAreTakenOrRefusedWithAMessage() throws {
        let store = try Self.store()
        let seeds = [
            #"{"name": "door", "description": "videotestsrc ! grid ! fakesink", "settings": {"stages": {"grid0": {"lines": "golden"}}, "restart": "always"}, "start": true}"#,
            #"{"description": "v4l2src device=/dev/video1 ! videoconvert"}"#,
        ]
        var rng = SplitMix(seed: 25)
        let alphabet = Array(#"{}[]":,0123456789.eE-+truefalsnul \ \u00"#.utf8) + [0xFF, 0x00, 0xC3]
        var taken = 0, refused = 0
        for round in 0..<3000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int(rng.next() % 8)))
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            do {
                if round % 2 == 0 { _ = try PipelineRequest.decode(Data(bytes), store: store) } else { _ = try PipelineRequest.source(Data(bytes)) }
                taken += 1
            } catch {
                #expect(!error.message.isEmpty)
                refused += 1
            }
        }
        #expect(taken + refused == 3000 && refused > 1000 && taken > 10, "taken \(taken), refused \(refused)")
    }

    /// A small seeded generator (the tests' own: the same cases every run).
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
