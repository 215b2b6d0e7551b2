import Foundation
import GStreamerKit
import Stages

/// Warns at start about every SRT listener others can reach without encryption: an `srtsink`/`srtsrc` whose
/// written uri listens on every interface (`srt://:8890?mode=listener`, 0.0.0.0, ::) or on a non-loopback address,
/// with no `passphrase` (property or uri parameter). Makes nothing when the description has none. The elements are
/// read back from the planned segments (the description after the settings file and `--set`), as written.
struct SRTExposureFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        let lines = build.plan.segments.flatMap { segment -> [String] in
            guard let parsed = try? ParsedDescription.parse(segment.description) else { return [] }
            return SRTElement.all(in: parsed).compactMap(Self.warning)
        }
        return lines.isEmpty ? [] : [SRTExposureService(startLines: lines)]
    }

    /// The warning for one element, nil when only this machine can reach it or it encrypts.
    static func warning(_ e: SRTElement) -> String? {
        guard let uri = try? SRTURI(e.uri), uri.listensBeyondThisMachine else { return nil }
        let passphrase = e.property("passphrase") ?? uri.parameters["passphrase"] ?? ""
        guard passphrase.isEmpty else { return nil }
        let element = e.property("name").map { "\(e.factory) '\(Echo.value($0))'" } ?? e.factory
        let everywhere = uri.host.isEmpty || IPAddress.isWildcard(uri.host)
        let peers = e.factory == "srtsrc" ? "can send it a stream" : "can watch"
        return "srt: warning: \(element) listens on \(everywhere ? "every interface" : uri.host) (\(Echo.value(e.uri))) without "
            + "encryption: anyone who reaches UDP port \(uri.port) \(peers); set passphrase= (10 to 79 characters, the same on "
            + "the other end) to encrypt, listen on srt://127.0.0.1:\(uri.port)?mode=listener for this machine only, or "
            + "firewall the port"
    }
}

/// The SRT exposure warnings of a session, printed at start with the other services' lines.
public final class SRTExposureService: SessionService {
    public let name = "srt"
    public let startLines: [String]
    init(startLines: [String]) { self.startLines = startLines }
}
