import Foundation
import GStreamerKit
import Stages

/// The checks made while a session is built, before anything runs: every failure is a usage error
/// (exit 2) naming the element and what to change. Nothing is created or written here.
///
/// (`DisplayCheck`, run by the command line after building, is the one check that needs the display
/// and stays outside: a session built in tests or benches does not look for one.)
///
/// Threads and locks: none; pure functions of their arguments, called on the building thread.
enum Preflight {
    /// Every element factory named in the description must exist (stages aside).
    static func checkFactories(_ parsed: ParsedDescription) throws(HostError) {
        for chain in parsed.chains {
            for node in chain.nodes {
                guard case .element(let f, _, _) = node else { continue }
                if StageRegistry.type(of: f) != nil || GStreamer.hasElementFactory(f) { continue }
                throw HostError(
                    .usage,
                    "unknown element or stage '\(Echo.value(f))': no GStreamer plugin provides it and it is not a Viewfinder stage (\(StageRegistry.all.map { $0.descriptor.kind }.joined(separator: ", "))); check the spelling or install the plugin"
                )
            }
        }
    }

    /// `srtsink`/`srtsrc` with both `uri=` and a separate `mode=`: GStreamer 1.22 loses that mode (setting the uri
    /// resets the connection parameters to the uri's, caller by default; a mode set after the uri makes a listener
    /// bind port 0 instead of the uri's). Nothing errors at run time: a listener just never gets its caller. The
    /// mode has to be written inside the uri (`uri=srt://HOST:PORT?mode=listener`), as the message says.
    static func checkSRTModes(_ parsed: ParsedDescription) throws(HostError) {
        for e in SRTElement.all(in: parsed) {
            guard let mode = e.property("mode") else { continue }
            let uri = e.uri
            let fix =
                uri.contains("mode=")
                ? "remove mode=\(Echo.value(mode)) and keep the uri's own mode"
                : "write it inside the uri: uri=\(Echo.value(uri))\(uri.contains("?") ? "&" : "?")mode=\(Echo.value(mode))"
            throw HostError(
                .usage,
                "\(e.factory): mode=\(Echo.value(mode)) next to uri= is lost (GStreamer 1.22 takes the mode from the uri, caller by default); "
                    + fix
            )
        }
    }

    /// Every written `uri=` of an `srtsink`/`srtsrc` must be one GStreamer 1.22 reads as meant (`SRTURI`): scheme
    /// `srt://`, a port 1-65535, a known mode; a listener or rendezvous must bind an address of this machine
    /// (`probe`: a UDP bind on port 0, `IPAddress.unavailable`) or every interface (empty host).
    static func checkSRTURIs(_ parsed: ParsedDescription, probe: (String) -> String? = IPAddress.unavailable) throws(HostError) {
        for e in SRTElement.all(in: parsed) {
            let problem: SRTURI.Problem?
            do { problem = try SRTURI(e.uri).bindProblem(probe: probe) } catch { problem = error }
            if let problem { throw HostError(.usage, "\(e.factory): uri '\(Echo.value(e.uri))' \(problem.text)") }
        }
    }

    /// An always-pad left unlinked means a missing '!' (or a dangling branch).
    static func checkLinks(_ pipes: [Pipeline]) throws(HostError) {
        for p in pipes {
            let elements = p.describedElements
            // After decodebin or a demuxer, gst_parse_launch links what follows once pads appear.
            let delayedLinks = elements.contains { $0.hasSometimesOutputs }
            let unlinked = elements.flatMap { e in e.unlinkedAlwaysPads.map { (e, $0) } }
            // Outputs first: "a b ! c" is best explained as a missing '!' after a.
            if let (e, pad) = unlinked.first(where: { $0.1.isSource }) {
                throw HostError(
                    .usage,
                    "element '\(e.name)' (\(e.factoryName)) has nothing linked to its output '\(pad.pad)': missing '!' after '\(e.factoryName)'?"
                )
            }
            if !delayedLinks, let (e, pad) = unlinked.first {
                throw HostError(
                    .usage,
                    "element '\(e.name)' (\(e.factoryName)) has nothing linked into its input '\(pad.pad)': missing '!' before '\(e.factoryName)'?"
                )
            }
        }
    }

    /// Local files read must exist (and be files); files written must have a writable directory (or one a
    /// stage creates when it opens, `stageDirectories`). Which elements read or write local files is decided
    /// from the element (its URI handler's protocols, or a known file-writing sink), never from a property
    /// name: `rtspsrc location=rtsp://...` or `rtmpsink location=rtmp://...` are not files.
    /// Returns the files this run will create (removed again if it fails to start).
    static func checkFiles(_ pipes: [Pipeline], stageDirectories: [String] = []) throws(HostError) -> [String] {
        var created: [String] = []
        for p in pipes {
            for e in p.describedElements {
                for f in e.localFiles {
                    let what = "\(f.property) of \(e.factoryName)"
                    switch f.role {
                    case .reads:
                        let problem = f.isPattern ? PathCheck.readableDirectory(of: f.path) : PathCheck.readableFile(f.path)
                        if let problem { throw HostError(.usage, "\(e.name): \(problem) (\(what))") }
                    case .writes:
                        if let problem = PathCheck.writableFile(f.path, willExist: stageDirectories) {
                            throw HostError(.usage, "\(e.name): cannot write '\(Echo.value(f.path))': \(problem) (\(what))")
                        }
                        if !f.isPattern && !FileManager.default.fileExists(atPath: f.path) { created.append(f.path) }
                    }
                }
            }
        }
        return created
    }
}
