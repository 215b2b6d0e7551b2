import Foundation
import GStreamerKit

/// One HLS sink of a session (`hlssink2` or `hlssink`): where it writes its playlist and its segments, read
/// from the element's `playlist-location` and `location` once the session is built (after the settings file and
/// `--set` overrides), made absolute against the working directory of that moment. Plain values, so any thread
/// (the control server's tasks) may read them without touching the element.
public struct HLSOutput: Equatable, Sendable {
    /// The element's name (`hlssink2-0`, or the `name=` given).
    public var name: String
    /// The element's factory (`hlssink2` or `hlssink`).
    public var factory: String
    /// The playlist file, absolute.
    public var playlist: String
    /// The directory the segments are written to (the directory of `location`), absolute. Both sinks write a
    /// segment's entry in the playlist as the segment's file name (without `playlist-root`), so a listed name is
    /// looked up here.
    public var segmentDirectory: String

    /// The factories whose files are served.
    public static let factories: Set<String> = ["hlssink2", "hlssink"]

    /// The HLS sinks of `pipelines`, in pipeline order, then in the order each pipeline lists its elements
    /// (sorted by name within a pipeline, so the order does not depend on GStreamer's iteration order).
    static func find(in pipelines: [Pipeline], workingDirectory: String = FileManager.default.currentDirectoryPath) -> [HLSOutput] {
        var out: [HLSOutput] = []
        for p in pipelines {
            let sinks = p.describedElements.filter { factories.contains($0.factoryName) }.sorted { $0.name < $1.name }
            for e in sinks {
                guard let playlist = e.string("playlist-location"), let location = e.string("location") else { continue }
                let absolute = { (path: String) in path.hasPrefix("/") ? path : FilePaths.join(workingDirectory, path) }
                out.append(
                    HLSOutput(
                        name: e.name, factory: e.factoryName, playlist: absolute(playlist),
                        segmentDirectory: FilePaths.directory(of: absolute(location))))
            }
        }
        return out
    }
}
