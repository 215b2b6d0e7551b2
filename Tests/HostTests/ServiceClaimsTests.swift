import Foundation
import Stages
import TestSupport
import Testing

@testable import Host

/// `ServiceClaims.extract`: a claimed element becomes a relay appsink (the default, unchanged), or the real element
/// its spec's `replacement` computes from the validated values and the claim's name.
@Suite struct ServiceClaimsTests {
    /// A relay element, as rtspserve and webrtcserve are.
    static let relay = ServiceElementSpec(
        factory: "relay", properties: [PropertySpec("depth", "frames", .int(1...9), default: "2")], feed: "anything", maxBuffers: 3,
        sinkPrefix: "vf_relay")

    /// An element that becomes a filesink writing NAME.bin into `dir` (created by its service when the run starts).
    static let stamp = ServiceElementSpec(
        factory: "stamp",
        properties: [
            PropertySpec("dir", "where", .string, default: "out"), PropertySpec("sync", "clock sync", .bool, default: "false"),
        ],
        feed: "anything", maxBuffers: 0, sinkPrefix: "vf_stamp",
        replacement: { values, name throws(HostError) in
            guard values.string("dir") != "refused" else { throw HostError(.usage, "stamp: dir 'refused': expected another") }
            return ElementReplacement(
                factory: "filesink",
                properties: [
                    PropertyAssignment(key: "location", value: values.string("dir") + "/" + name + ".bin"),
                    PropertyAssignment(key: "sync", value: values.bool("sync") ? "true" : "false"),
                ],
                createsDirectories: [values.string("dir")])
        })

    static func extract(_ text: String) throws -> (ParsedDescription, [ClaimedElement]) {
        try ServiceClaims.extract(from: ParsedDescription.parse(text), specs: [relay, stamp])
    }

    @Test func withoutAReplacementTheElementStillBecomesARelayAppsink() throws {
        let (out, claims) = try Self.extract("videotestsrc ! relay depth=4")
        #expect(
            out.render()
                == "videotestsrc ! appsink name=vf_relay0 sync=false async=false emit-signals=false enable-last-sample=false max-buffers=3 drop=true"
        )
        #expect(claims.count == 1 && claims[0].replacement == nil && claims[0].appSink == "vf_relay0" && claims[0].values.int("depth") == 4)
    }

    @Test func aReplacementIsTheRealElementNamedAsTheClaim() throws {
        let (out, claims) = try Self.extract("videotestsrc ! tee name=t ! stamp sync=true  t. ! queue ! stamp name=second dir=elsewhere")
        #expect(
            out.render()
                == "videotestsrc ! tee name=t ! filesink name=vf_stamp0 location=out/vf_stamp0.bin sync=true t. ! queue ! filesink name=second location=elsewhere/second.bin sync=false"
        )
        #expect(claims.map(\.elementName) == ["vf_stamp0", "second"])
        #expect(
            claims[1].replacement
                == ElementReplacement(
                    factory: "filesink",
                    properties: [
                        PropertyAssignment(key: "location", value: "elsewhere/second.bin"), PropertyAssignment(key: "sync", value: "false"),
                    ],
                    createsDirectories: ["elsewhere"]))
        #expect(Self.stamp.allProperties.first?.blurb == "name of the element it becomes")
    }

    @Test func theReplacementsErrorsAndThePropertyErrorsAreUsageErrors() {
        #expect(throws: HostError(.usage, "stamp: dir 'refused': expected another")) {
            try Self.extract("videotestsrc ! stamp dir=refused")
        }
        #expect(throws: HostError(.usage, "stamp: bad value 'maybe' for property 'sync': expected boolean true, false")) {
            try Self.extract("videotestsrc ! stamp sync=maybe")
        }
        #expect(throws: HostError(.usage, "stamp is a sink: nothing can follow it (found 'fakesink' after it)")) {
            try Self.extract("videotestsrc ! stamp ! fakesink")
        }
    }

    /// The directories a replacement's service creates when the run starts pass the files check before anything runs;
    /// building the session creates none of them.
    @Test func itsDirectoriesMayBeMissingWhileTheSessionIsBuilt() throws {
        struct StampFactory: ServiceFactory {
            var elements: [ServiceElementSpec] { [ServiceClaimsTests.stamp] }
            func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] { [] }
        }
        let d = Tools.tempDir().appendingPathComponent("later/deeper").path
        var options = SessionOptions()
        options.services = [StampFactory()]
        let session = try Session(description: "videotestsrc num-buffers=1 ! stamp dir=\(d)", options: options)
        #expect(session.plan.render().contains("filesink name=vf_stamp0 location=\(d)/vf_stamp0.bin"))
        #expect(!FileManager.default.fileExists(atPath: d))
        // The same filesink written by hand: its directory must exist.
        #expect {
            _ = try Session(description: "videotestsrc num-buffers=1 ! filesink location=\(d)/x.bin")
        } throws: { error in
            (error as? HostError)?.message.contains("does not exist") == true
        }
    }
}
