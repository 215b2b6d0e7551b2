import GStreamerKit
import Stages
import Timing

/// Why a source switch was refused (`Session.switchSource(to:)`); the running source is untouched either way.
public struct SourceSwitchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal.
    public enum Kind: Sendable, Equatable {
        /// The new description is wrong: it does not parse (`token`, `offset` say where), names an unknown element or
        /// a stage, does not link, does not give raw video the stages can take, or failed or gave no frame when
        /// tried (HTTP 400).
        case invalid
        /// The session cannot switch now: no stage (nothing to switch in front of), not running, several source
        /// segments, a source segment with other outputs, another switch under way (HTTP 409).
        case conflict
    }
    /// Invalid or conflict.
    public var kind: Kind
    /// Names the bad token or element, or the state, and what was expected.
    public var message: String
    /// The offending token of a description that does not parse.
    public var token: String?
    /// Its character offset in the description (-1: none).
    public var offset: Int

    /// Creates one.
    public init(_ kind: Kind, _ message: String, token: String? = nil, offset: Int = -1) {
        self.kind = kind; self.message = message; self.token = token; self.offset = offset
    }
    /// The message.
    public var description: String { message }
}

/// What a source switch did.
public struct SourceSwitched: Sendable, Equatable {
    /// The new description, as given.
    public var description: String
    /// Its first element's factory (`videotestsrc`).
    public var element: String
    /// The pad offset given to the new source's frames (ns) so their running time follows the old source's.
    public var offsetNs: Int64
    /// The elements taken out (the old source).
    public var retired: [String]
}

/// The checks and the swap behind `Session.switchSource(to:)`: the new description is parsed, checked (factories, no
/// stage, links, raw video the stages take now) and built as a bin, tried in the running source segment while its
/// frames are still dropped, and only once it gave frames spliced in front of the group's appsink; then the old
/// source is stopped and removed. See ARCHITECTURE.md "Source switch".
enum SourceSwitch {
    /// The name of the caps filter that pins the new source to the caps the stages get now.
    static let capsFilter = "vf_switch_caps"

    /// Parses and checks the text alone: the first element's factory, or why not.
    static func check(_ text: String) throws(SourceSwitchError) -> String {
        let parsed: ParsedDescription
        do { parsed = try ParsedDescription.parse(text) } catch {
            throw SourceSwitchError(.invalid, error.message, token: error.token, offset: error.offset)
        }
        var first: String?
        for chain in parsed.chains {
            for node in chain.nodes {
                guard case .element(let f, _, _) = node else { continue }
                if StageRegistry.type(of: f) != nil {
                    throw SourceSwitchError(
                        .invalid,
                        "'\(Echo.value(f))' is a Viewfinder stage: the new source is what comes before the first stage (GStreamer elements, e.g. 'videotestsrc is-live=true ! videoconvert'); the stages stay as they are"
                    )
                }
                first = first ?? f
            }
        }
        do { try Preflight.checkFactories(parsed) } catch { throw SourceSwitchError(.invalid, error.message) }
        guard let first else {
            throw SourceSwitchError(.invalid, "the new source has no element: expected e.g. 'videotestsrc is-live=true'")
        }
        return first
    }

    /// Builds the text alone and checks that it gives raw video (what a caps query at its output allows in READY).
    /// A fragment that does not build alone with one open output (it ends in a dynamic pad: `decodebin`, `rtspsrc`)
    /// is left to `build`, which appends the conversion.
    static func checkMedia(_ text: String) throws(SourceSwitchError) {
        let alone: SourceSplice
        do { alone = try SourceSplice.make(text, name: "vf_switch_check") } catch {
            if case .noOutput(.some) = error { return }
            throw SourceSwitchError(.invalid, "the new source cannot be built: \(error)")
        }
        defer { alone.setState(.null) }
        alone.setState(.ready)
        guard let caps = alone.outputCaps(), !caps.isAny, !caps.isEmpty else { return }
        let media = caps.mediaTypes
        if !media.isEmpty && !media.contains("video/x-raw") {
            let hint =
                media.contains { $0.hasPrefix("video/") || $0.hasPrefix("image/") }
                ? "decode it first (e.g. '... ! decodebin ! videoconvert')" : "give a video source (e.g. 'videotestsrc is-live=true')"
            throw SourceSwitchError(.invalid, "the new source gives \(media.joined(separator: ", ")), not raw video (video/x-raw): \(hint)")
        }
    }

    /// The bin to splice in: the text, then conversion and scaling to `caps` (the caps the stages get now), so the
    /// stage group and everything after it see no change of format or size. Refused when it cannot give them.
    static func build(_ text: String, caps: Caps?, name: String) throws(SourceSwitchError) -> SourceSplice {
        let splice = try make("\(text) ! videoconvert ! videoscale ! capsfilter name=\(capsFilter)", name: name)
        if let caps, let filter = splice.element(named: capsFilter) {
            do { try filter.set("caps", caps.description) } catch {
                throw SourceSwitchError(.invalid, "internal: the current caps \(caps) do not parse: \(error.message)")
            }
        }
        splice.setState(.ready)
        let out = splice.outputCaps()
        splice.setState(.null)
        if let out, out.isEmpty {
            throw SourceSwitchError(
                .invalid,
                "the new source cannot give the frames the stages get now (\(Echo.value(caps?.description ?? "?", limit: 200))) even converted and scaled: add 'videorate' for another frame rate"
            )
        }
        return splice
    }

    private static func make(_ text: String, name: String) throws(SourceSwitchError) -> SourceSplice {
        do { return try SourceSplice.make(text, name: name) } catch {
            throw SourceSwitchError(.invalid, "the new source cannot be built: \(error)")
        }
    }

    /// The pad offset (ns) for the new source's frames, decided on its first frame after the link (`first`, its
    /// running time; that frame is dropped, the next comes `duration` later): its next frame follows the old
    /// source's last (`oldLast`) by one frame duration `d` when the old one was flowing until now (`now`, the
    /// pipelines' running time: within a second) or when it would otherwise go backwards; else none (the old source
    /// was away: a live source's frames stay on the clock, a keeper fills the hole).
    static func offset(first: UInt64?, duration: UInt64?, oldLast: UInt64?, frame d: UInt64, now: UInt64) -> Int64 {
        guard let first, let oldLast else { return 0 }
        let next = first &+ (duration.flatMap { $0 > 0 ? $0 : nil } ?? d)
        let target = oldLast &+ d
        let recent = now >= oldLast && now - oldLast < 1_000_000_000
        if next < target || recent { return Int64(bitPattern: target) &- Int64(bitPattern: next) }
        return 0
    }
}
