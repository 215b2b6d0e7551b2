import Foundation
import GStreamerKit

/// The directory `viewfinder serve DIR` runs: every `NAME.pipeline` (gst-launch text, `#` comments allowed) is a
/// named pipeline, `NAME.json` beside it its settings. Pipelines added and removed through the API are written back
/// here atomically (`AtomicFile`), so a restarted process (even after kill -9) runs the same cameras.
///
/// Threads: none of its own; `CameraHost` calls it under its lock, so writes never interleave.
public struct CameraStore: Sendable {
    /// The directory.
    public let directory: String

    /// A store on `directory`, which must exist and be writable: a usage error naming it otherwise.
    public init(directory: String) throws(HostError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HostError(.usage, "serve: '\(directory)' is not a directory: expected a directory of NAME.pipeline files")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw HostError(
                .usage, "serve: cannot write in '\(directory)': \(String(cString: strerror(errno))) (added pipelines are saved there)")
        }
        self.directory = directory
    }

    /// `DIR/NAME.pipeline`.
    public func pipelineFile(_ name: String) -> String { FilePaths.join(directory, "\(name).pipeline") }
    /// `DIR/NAME.json`.
    public func settingsFile(_ name: String) -> String { FilePaths.join(directory, "\(name).json") }

    /// Every pipeline of the directory, by name. A bad name, an unreadable file, a description file without a
    /// description or a bad settings file is a usage error naming the file.
    public func load() throws(HostError) -> [CameraSpec] {
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw HostError(.usage, "serve: cannot list '\(directory)': \(error.localizedDescription)")
        }
        var specs: [CameraSpec] = []
        for entry in entries.sorted() where entry.hasSuffix(".pipeline") && !entry.hasPrefix(".") {
            let name = String(entry.dropLast(".pipeline".count))
            let file = FilePaths.join(directory, entry)
            do { try CameraSpec.check(name: name) } catch { throw HostError(.usage, "\(file): \(error.message)") }
            guard let data = FileManager.default.contents(atPath: file) else { throw HostError(.usage, "\(file): cannot read") }
            let description: String
            do { description = try PipelineFile.description(fromFileText: String(decoding: data, as: UTF8.self)) } catch {
                throw HostError(.usage, "\(file): \(error.message)")
            }
            let settingsPath = settingsFile(name)
            let settings = FileManager.default.fileExists(atPath: settingsPath) ? try SettingsFile.load(path: settingsPath) : nil
            specs.append(CameraSpec(name: name, description: description, settings: settings))
        }
        return specs
    }

    /// Writes `spec` (and its settings, when it has some) atomically. A runtime error with the reason.
    public func save(_ spec: CameraSpec) throws(HostError) {
        let text = "# \(spec.name): added through the API of viewfinder serve\n\(spec.description)\n"
        do { try AtomicFile.write(Data(text.utf8), to: pipelineFile(spec.name)) } catch {
            throw HostError(.runtime, "cannot write \(pipelineFile(spec.name)): \(error.reason)")
        }
        guard var settings = spec.settings else { return }
        settings.path = settingsFile(spec.name)
        try settings.save()
    }

    /// Removes `NAME.pipeline` and `NAME.json` (a later pipeline of the same name starts without old settings).
    public func remove(_ name: String) throws(HostError) {
        for file in [pipelineFile(name), settingsFile(name)] {
            do { try AtomicFile.remove(file) } catch { throw HostError(.runtime, "cannot remove \(file): \(error.reason)") }
        }
    }
}
