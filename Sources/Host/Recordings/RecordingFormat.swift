/// The container of a `recordings` element's segments (`format=`), with the muxer `splitmuxsink` makes for it.
///
/// The muxer is chosen by `muxer-factory`, which GStreamer 1.22's splitmuxsink honours also without
/// `async-finalize` (measured: `muxer-factory=matroskamux` writes Matroska; gst-inspect says "valid only for
/// async-finalize = TRUE"). `muxer-properties` is NOT applied without async-finalize, and the `muxer` property takes
/// an element object a description cannot give: so each format uses its muxer's defaults, and async-finalize stays
/// off (with it on, 1.22 also posts fragment-closed messages with a zero running time: livekit/egress#281).
///
/// What a kill -9 leaves of the segment being written (measured, 1.22): `mkv` and `ts` play up to the kill (mkv
/// without a duration); `mp4` has no `moov` ("moov atom not found": unplayable without a repair tool), every closed
/// segment is complete. mp4mux's `faststart=true` would need muxer-properties (so async-finalize) and leaves a
/// zero-byte segment and a `/tmp/qtmuxNNNN` temporary behind on a kill: not used. The moov at the end of a closed
/// mp4 does not hurt playback over HTTP: the control server answers Range requests.
public enum RecordingFormat: String, Sendable, CaseIterable {
    case mp4, mkv, ts

    /// The file name extension (without the dot).
    public var fileExtension: String { rawValue }

    /// The muxer splitmuxsink makes per segment.
    public var muxer: String {
        switch self {
        case .mp4: "mp4mux"
        case .mkv: "matroskamux"
        case .ts: "mpegtsmux"
        }
    }

    /// The HTTP content type of a segment.
    public var contentType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mkv: "video/x-matroska"
        case .ts: "video/mp2t"
        }
    }

    /// The format of a segment file name's extension (`REC_00001.mkv` -> mkv).
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        self.init(rawValue: String(fileName[fileName.index(after: dot)...]))
    }
}
