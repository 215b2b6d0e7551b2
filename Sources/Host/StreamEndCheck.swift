import Foundation
import GStreamerKit

/// Tells when a stream ended before its stated duration (a truncated file).
///
/// GStreamer posts nothing on the bus for a file cut short: qtdemux, matroskademux and avidemux only
/// log ("short read", "Dropping short buffer", "truncated file?") and then send end-of-stream, so a
/// half file played to its end with exit 0. At each sink's end-of-stream the position upstream
/// reports (what the demuxer really pushed) is compared with the duration it reports (from the
/// file's header). MPEG-TS states no duration (tsdemux estimates it from the file size), so a
/// truncated .ts cannot be told this way.
public final class StreamEndCheck: @unchecked Sendable {
    private let watches: [(Pipeline, StreamEndWatch)]
    private let deliberate: Bool

    /// Starts watching a session's pipelines (call before running it).
    public init(_ session: Session, description: String) {
        watches = session.pipelines.map { ($0, $0.watchStreamEnd()) }
        // num-buffers= or identity eos-after= end the stream early on purpose.
        let parsed = try? ParsedDescription.parse(description)
        deliberate = (parsed?.chains ?? []).contains { chain in
            chain.nodes.contains { node in
                guard case .element(_, let props, _) = node else { return false }
                return props.contains { ($0.key == "num-buffers" || $0.key == "eos-after") && $0.value != "-1" }
            }
        }
    }

    /// Shortfall tolerated: tracks of one file may end a little apart.
    static func endedEarly(position: UInt64, duration: UInt64) -> Bool {
        let slack = max(500_000_000, duration / 50)
        return position + slack < duration
    }

    /// One warning per pipeline whose stream ended early (after a run that ended by itself).
    public func warnings() -> [String] {
        guard !deliberate else { return [] }
        var out: [String] = []
        for (pipe, watch) in watches {
            // The sink that got furthest speaks for the pipeline.
            let ends = watch.seen.filter { $0.position != nil && $0.duration != nil }
            guard let best = ends.max(by: { $0.position! < $1.position! }), let pos = best.position, let dur = best.duration,
                Self.endedEarly(position: pos, duration: dur)
            else { continue }
            let inputs = pipe.allElements.filter { $0.isSource && $0.hasProperty("location") }
                .compactMap { e in e.string("location").map { "\(e.name) location=\($0)" } }
            out.append(Self.text(position: pos, duration: dur, inputs: inputs))
        }
        return out
    }

    static func text(position: UInt64, duration: UInt64, inputs: [String]) -> String {
        String(format: "WARNING: input ended at %.1f s of %.1f s (truncated file?)", Double(position) / 1e9, Double(duration) / 1e9)
            + (inputs.isEmpty ? "" : ": " + inputs.joined(separator: ", "))
    }
}
