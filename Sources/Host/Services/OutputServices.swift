import Foundation
import GStreamerKit
import Stages
import Synchronization

/// Finds the HLS sinks of a session (`hlssink2`, `hlssink`): the control server serves their files.
struct HLSOutputsFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        let outputs = HLSOutput.find(in: build.pipelines)
        return outputs.isEmpty ? [] : [HLSOutputsService(outputs: outputs)]
    }
}

/// The session's HLS outputs with their playlist and segment locations as built (Control's `HLSRoutes` serves
/// them over `--http`). Plain values: any thread reads them.
public final class HLSOutputsService: SessionService {
    public let name = "hls"
    /// In pipeline order, then by element name.
    public let outputs: [HLSOutput]
    /// Playlists served so far, by output name (HLS clients poll: there is no connection to count).
    private let served = Mutex<[String: Int]>([:])
    init(outputs: [HLSOutput]) { self.outputs = outputs }

    /// The routes served the playlist of output `name` (any thread).
    public func playlistServed(_ name: String) { served.withLock { $0[name, default: 0] += 1 } }

    /// `viewfinder_hls_playlist_requests_total{output="NAME"}` for every HLS output.
    public var metricSamples: [MetricSample] {
        let counts = served.withLock { $0 }
        return outputs.map {
            MetricSample(
                "viewfinder_hls_playlist_requests_total", .counter,
                help: "HLS playlists served by the control server (players poll it every few seconds while they watch)",
                labels: [("output", $0.name)], value: Double(counts[$0.name] ?? 0))
        }
    }
}

/// The preview of a session that has a stage group (the last group's output frames).
struct PreviewFactory: ServiceFactory {
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        build.groups.isEmpty ? [] : [PreviewService(tap: PreviewTap())]
    }
}

/// The live preview: its tap sees every frame the last stage group pushes (nothing is done without a viewer);
/// closed before the pipelines stop.
public final class PreviewService: SessionService {
    public let name = "preview"
    /// The tap (viewers, JPEGs).
    public let tap: PreviewTap
    init(tap: PreviewTap) { self.tap = tap }
    public var frameTap: (any FrameTap)? { tap }
    public func runEnding() { tap.close() }
    /// `viewfinder_viewers{output="preview"}`: MJPEG viewers now.
    public var metricSamples: [MetricSample] { [.viewers(output: "preview", tap.viewers)] }
}

extension PreviewTap: FrameTap {}

/// Writes live property changes back to the settings file (`--save-settings`), off the caller's thread; the last
/// changes are flushed when the session closes.
public struct SettingsWriterFactory: ServiceFactory {
    let settings: SettingsFile
    /// A writer for `settings`.
    public init(settings: SettingsFile) { self.settings = settings }
    public func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService] {
        [SettingsWriterService(writer: SettingsWriter(settings))]
    }
}

/// The settings writer as a service: every change that took is recorded (a mutex, then the writer's own queue).
public final class SettingsWriterService: SessionService {
    public let name = "settings"
    /// The writer.
    public let writer: SettingsWriter
    init(writer: SettingsWriter) { self.writer = writer }
    public func propertiesChanged(stage: String, _ changes: [(String, PropertyValue)]) { writer.record(stage: stage, changes) }
    public func close() { writer.flush() }
}

extension Session {
    /// The HLS outputs (`hlssink2`/`hlssink`), as built.
    public var hlsOutputs: [HLSOutput] { services(HLSOutputsService.self).first?.outputs ?? [] }
    /// The live preview, nil when the description has no stage group to feed it.
    public var preview: PreviewTap? { services(PreviewService.self).first?.tap }
    /// Whether the run has a stage group to feed the preview.
    public var hasPreview: Bool { preview != nil }
}
