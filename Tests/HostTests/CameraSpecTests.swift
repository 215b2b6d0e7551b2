import Testing

@testable import Host

/// Pipeline names are file names, URL segments and MQTT topic levels as they are.
struct CameraSpecTests {
    @Test func goodNamesPass() throws {
        for name in ["door", "cam-2", "back_yard", "0", String(repeating: "a", count: 64)] { try CameraSpec.check(name: name) }
    }

    @Test func badNamesAreNamedWithWhatIsExpected() {
        for name in ["", "Door", "front door", "a/b", "-x", "_x", "café", "a+b", "a#", String(repeating: "a", count: 65), "../x"] {
            #expect {
                try CameraSpec.check(name: name)
            } throws: { e in
                let m = (e as? HostError)?.message ?? ""
                return m.hasPrefix("bad pipeline name '") && m.contains("expected 1-64 characters of a-z, 0-9")
            }
        }
    }

    @Test func reservedWordsAreRefused() {
        #expect(throws: HostError(.usage, "bad pipeline name 'cmd': reserved (cmd, events, healthz, metrics, pipelines, reply, state): expected another name")) {
            try CameraSpec.check(name: "cmd")
        }
    }

    @Test func restartComesFromTheSettings() {
        var settings = SettingsFile(path: "x.json")
        #expect(CameraSpec(name: "a", description: "x").restart == .onError)
        settings.restart = .never
        #expect(CameraSpec(name: "a", description: "x", settings: settings).restart == .never)
    }
}
