import Foundation
import GStreamerKit
import Synchronization

/// Refuses, before anything runs, a description whose video sink needs a display that is not there.
///
/// Without a display autovideosink tries xvimagesink, kmssink and ximagesink (each fails cleanly),
/// then DirectFB's dfbvideosink, which crashes the process (SIGSEGV in libfusion's "Fusion Dispatch"
/// thread, exit 139, no message); gst-launch-1.0 does the same. fpsdisplaysink and playbin use
/// autovideosink unless `video-sink=` is given.
public enum DisplayCheck {
    /// Sinks that open an X11 display on READY: probed themselves.
    static let xSinks: Set<String> = ["ximagesink", "xvimagesink"]
    /// Sinks that pick a display output themselves (X11, Wayland or KMS).
    static let autoSinks: Set<String> = ["autovideosink"]
    /// Elements that make an autovideosink unless given `video-sink=`.
    static let wrappers: Set<String> = ["fpsdisplaysink", "playbin", "playbin3"]
    /// Toolkit sinks: X11 or Wayland.
    static let toolkitSinks: Set<String> = ["glimagesink", "gtksink", "gtkglsink", "clutterautovideosink", "qmlglsink", "qml6glsink"]
    /// Wayland only.
    static let waylandSinks: Set<String> = ["waylandsink"]

    /// Display probes that opened their display, kept in READY until `releaseProbes()`.
    static let heldProbes = Mutex<[ReadyElement]>([])

    /// Closes the display connections the check opened (after the run).
    public static func releaseProbes() { heldProbes.withLock { $0.removeAll() } }

    /// What to use instead, for every message.
    static let instead =
        "use fakesink, or encode to a file (videoconvert ! x264enc ! mp4mux ! filesink location=out.mp4), or run under Xvfb (xvfb-run -a viewfinder ...)"

    /// The display as seen from the environment; `xOpens` probes the X display (default: ximagesink to READY).
    public struct Environment: Sendable {
        public var display: String?
        public var waylandSocket: String?
        public var hasDRM: Bool
        public var xOpens: @Sendable (String) -> Bool

        /// This process's environment.
        public static func current() -> Environment {
            let env = ProcessInfo.processInfo.environment
            let display = env["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
            var socket: String?
            if let w = env["WAYLAND_DISPLAY"], !w.isEmpty {
                socket = w.hasPrefix("/") ? w : (env["XDG_RUNTIME_DIR"].map { $0 + "/" + w } ?? w)
            }
            let dri = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []
            return Environment(
                display: display, waylandSocket: socket,
                hasDRM: dri.contains { $0.hasPrefix("card") && FileManager.default.isWritableFile(atPath: "/dev/dri/" + $0) },
                xOpens: { factory in
                    // Kept open until the run ends (`releaseProbes`), so the X server cannot
                    // reset between this probe and the real sink's connection.
                    guard let probe = GStreamer.elementInReady(factory) else { return false }
                    heldProbes.withLock { $0.append(probe) }
                    return true
                })
        }
    }

    /// Throws a usage error naming the first element that cannot show video here.
    /// `elements` are (name, factory) of every element built; `withVideoSink` the wrapper factories
    /// every use of which sets `video-sink=`.
    public static func check(
        elements: [(name: String, factory: String)], withVideoSink: Set<String>,
        environment env: Environment
    ) throws(HostError) {
        var xCache: [String: Bool] = [:]
        func x(_ factory: String) -> Bool {
            guard env.display != nil else { return false }
            if let v = xCache[factory] { return v }
            let v = env.xOpens(factory)
            xCache[factory] = v
            return v
        }
        let wayland = env.waylandSocket.map { FileManager.default.fileExists(atPath: $0) } ?? false
        for (name, factory) in elements {
            let ok: Bool
            if xSinks.contains(factory) {
                ok = x(factory)
            } else if autoSinks.contains(factory) || (wrappers.contains(factory) && !withVideoSink.contains(factory)) {
                ok = x("ximagesink") || wayland || env.hasDRM
            } else if toolkitSinks.contains(factory) {
                ok = x("ximagesink") || wayland
            } else if waylandSinks.contains(factory) {
                ok = wayland
            } else {
                continue
            }
            if ok { continue }
            let label = name.hasPrefix(factory) ? factory : "\(name) (\(factory))"
            if factory == "xvimagesink", let d = env.display, x("ximagesink") {
                throw HostError(
                    .usage, "\(label): the X display '\(d)' has no XVideo adaptor (Xvfb has none): use ximagesink or autovideosink instead")
            }
            throw HostError(.usage, "\(label): \(reason(env, wantsX: !waylandSinks.contains(factory))): \(instead)")
        }
    }

    static func reason(_ env: Environment, wantsX: Bool) -> String {
        if let w = env.waylandSocket, !wantsX { return "cannot reach the Wayland display '\(w)'" }
        if !wantsX { return "no Wayland display (WAYLAND_DISPLAY is not set)" }
        if let d = env.display {
            return "cannot open the X display '\(d)'" + (env.waylandSocket.map { " nor the Wayland display '\($0)'" } ?? "")
        }
        if let w = env.waylandSocket { return "no display (DISPLAY is not set; the Wayland display '\(w)' cannot be reached)" }
        return "no display (DISPLAY is not set)"
    }

    /// Checks a session's pipelines (built from `description` with `overrides`) against this process's display.
    public static func check(_ session: Session, description: String, overrides: [String]) throws(HostError) {
        var withSink: Set<String> = []
        var without: Set<String> = []
        let parsed = try? ParsedDescription.parse(description).applying(overrides: overrides)
        for chain in parsed?.chains ?? [] {
            for node in chain.nodes {
                guard case .element(let f, let props, _) = node, wrappers.contains(f) else { continue }
                if props.contains(where: { $0.key == "video-sink" }) { withSink.insert(f) } else { without.insert(f) }
            }
        }
        let elements = session.pipelines.flatMap { $0.allElements.map { (name: $0.name, factory: $0.factoryName) } }
        let display = elements.contains {
            xSinks.contains($0.factory) || autoSinks.contains($0.factory) || wrappers.contains($0.factory)
                || toolkitSinks.contains($0.factory) || waylandSinks.contains($0.factory)
        }
        guard display else { return }
        try check(elements: elements, withVideoSink: withSink.subtracting(without), environment: .current())
    }
}
