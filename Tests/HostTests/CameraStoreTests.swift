import Foundation
import Testing

@testable import Host

/// The directory `serve` runs: loaded by name with settings beside, written back atomically, removed with settings.
struct CameraStoreTests {
    static func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func loadsEveryPipelineFileWithItsSettings() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# the door\nvideotestsrc ! grid\n  ! fakesink\n".write(toFile: "\(dir)/door.pipeline", atomically: true, encoding: .utf8)
        try "videotestsrc ! fakesink\n".write(toFile: "\(dir)/yard.pipeline", atomically: true, encoding: .utf8)
        try #"{"restart": "always", "stages": {"grid0": {"lines": "golden"}}}"#.write(
            toFile: "\(dir)/door.json", atomically: true, encoding: .utf8)
        try "not a pipeline".write(toFile: "\(dir)/notes.txt", atomically: true, encoding: .utf8)
        let specs = try CameraStore(directory: dir).load()
        #expect(specs.map(\.name) == ["door", "yard"])
        #expect(specs[0].description == "videotestsrc ! grid   ! fakesink")  // lines joined as PipelineFile joins them
        #expect(specs[0].restart == .always)
        #expect(specs[0].settings?.stages["grid0"]?["lines"] == .string("golden"))
        #expect(specs[1].settings == nil)
    }

    @Test func aBadNameOrFileIsAUsageErrorNamingTheFile() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "videotestsrc ! fakesink".write(toFile: "\(dir)/Front Door.pipeline", atomically: true, encoding: .utf8)
        #expect {
            try CameraStore(directory: dir).load()
        } throws: { e in
            ((e as? HostError)?.message ?? "").hasPrefix("\(dir)/Front Door.pipeline: bad pipeline name 'Front Door'")
        }
        #expect(throws: HostError(.usage, "serve: '\(dir)/none' is not a directory: expected a directory of NAME.pipeline files")) {
            try CameraStore(directory: "\(dir)/none")
        }
    }

    @Test func savedPipelinesLoadBackAndRemovedOnesAreGone() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try CameraStore(directory: dir)
        var settings = SettingsFile(path: "ignored.json")
        settings.stages["grid0"] = ["lines": .string("center")]
        try store.save(CameraSpec(name: "porch", description: "videotestsrc is-live=true ! grid ! fakesink", settings: settings))
        let loaded = try store.load()
        #expect(loaded.map(\.name) == ["porch"])
        #expect(loaded[0].description == "videotestsrc is-live=true ! grid ! fakesink")
        #expect(loaded[0].settings?.path == "\(dir)/porch.json")
        #expect(loaded[0].settings?.stages["grid0"]?["lines"] == .string("center"))
        // No temp file is left beside them.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["porch.json", "porch.pipeline"])
        try store.remove("porch")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(try store.load().isEmpty)
    }
}
