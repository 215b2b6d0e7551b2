import CGStreamer

#if canImport(Glibc)
import Glibc
#endif

/// Path operations done by GLib (Foundation's `NSString.deletingLastPathComponent` traps on
/// one-character relative paths such as `a`, `5`, `.` or `a/` in swift-corelibs-foundation).
public enum FilePaths {
    /// The directory part, as dirname(1): `a` -> `.`, `a/` -> `.`, `d/a` -> `d`, `/a` -> `/`.
    public static func directory(of path: String) -> String {
        // g_path_get_dirname keeps "a/" as "a"; a trailing slash names the directory itself, whose parent we want.
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        guard let d = g_path_get_dirname(p) else { return "." }
        defer { g_free(d) }
        return String(cString: d)
    }

    /// The last component, as basename(1): `d/a.jpg` -> `a.jpg`, `a/` -> `a`.
    public static func fileName(of path: String) -> String {
        guard let b = g_path_get_basename(path) else { return path }
        defer { g_free(b) }
        return String(cString: b)
    }

    /// `directory/name` (no doubled slash; an empty directory gives `name`).
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The canonical absolute path of an existing file or directory, every symlink and `.`/`..` resolved
    /// (realpath(3)); nil when it does not exist or cannot be resolved. Used to decide whether a file
    /// really lies inside a directory (a symlink pointing out of it resolves outside).
    public static func realPath(_ path: String) -> String? {
        guard !path.isEmpty, !path.utf8.contains(0), let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// True when `text` is a URI with a scheme (`rtsp://...`, `file:///...`), as gst_uri_is_valid decides.
    public static func isURI(_ text: String) -> Bool { gst_uri_is_valid(text) != 0 }

    /// The scheme of a URI (`rtsp`), lower-case, or nil when `text` is not a URI.
    public static func scheme(of text: String) -> String? {
        guard isURI(text), let p = gst_uri_get_protocol(text) else { return nil }
        defer { g_free(p) }
        return String(cString: p).lowercased()
    }

    /// The local path of a `file://` URI (nil for other URIs or a bad one).
    public static func path(fromFileURI uri: String) -> String? {
        guard scheme(of: uri) == "file", let p = g_filename_from_uri(uri, nil, nil) else { return nil }
        defer { g_free(p) }
        return String(cString: p)
    }
}

/// A local file an element reads or writes, as its description set it.
public struct LocalFile: Sendable, Equatable {
    /// Read (a source) or written (a sink).
    public enum Role: Sendable, Equatable { case reads, writes }
    /// The property holding it (`location`, `playlist-location`).
    public var property: String
    /// The path (a `file://` URI turned into its path).
    public var path: String
    /// Read or written.
    public var role: Role
    /// True when the path is a pattern (`%05d`, a glob) naming several files.
    public var isPattern: Bool
    /// Creates a description of one local file.
    public init(property: String, path: String, role: Role, isPattern: Bool) {
        self.property = property; self.path = path; self.role = role; self.isPattern = isPattern
    }
}

extension Element {
    /// URI schemes of elements that read or write local files through their `location`.
    static let localProtocols: Set<String> = ["file", "pushfile", "multifile", "imagesequence", "splitfile", "splitmux"]
    /// Schemes whose `location` is a pattern (sprintf index or glob), not one file.
    static let patternProtocols: Set<String> = ["multifile", "imagesequence", "splitfile", "splitmux"]
    /// File-writing sinks without a URI handler, and the properties that hold their file names or patterns.
    static let fileWriters: [String: [String]] = [
        "multifilesink": ["location"], "splitmuxsink": ["location"],
        "hlssink": ["location", "playlist-location"], "hlssink2": ["location", "playlist-location"],
        "hlssink3": ["location", "playlist-location"],
    ]

    /// The element's URI handler: (acts as a source, protocols), or nil when it is not one.
    public var uriHandler: (isSource: Bool, protocols: [String])? {
        let instance = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(instance, gst_uri_handler_get_type()) != 0 else { return nil }
        let handler = OpaquePointer(raw)
        var protocols: [String] = []
        if let list = gst_uri_handler_get_protocols(handler) {
            var i = 0
            while let p = list[i] { protocols.append(String(cString: p).lowercased()); i += 1 }
        }
        return (gst_uri_handler_get_uri_type(handler) == GST_URI_SRC, protocols)
    }

    /// Local files this element reads or writes, decided from the element itself: a URI handler for a
    /// local protocol (`file`, `multifile`, ...) reads or writes its `location` as its URI type says; a
    /// file-writing sink without one (multifilesink, splitmuxsink, hlssink*) writes its locations.
    /// Network elements (rtspsrc, souphttpsrc, rtmpsink, srtsink...) give none: their locations are URLs.
    public var localFiles: [LocalFile] {
        var out: [LocalFile] = []
        // An element that handles local and remote schemes alike (giosrc: file, resource, sftp...) takes a
        // URI in `location`; one that handles only local schemes (filesrc, multifilesink) takes a file name,
        // used literally (filesrc location=file:///x opens a file named "file:///x").
        let protocols = uriHandler?.protocols ?? []
        let takesURI =
            protocols.contains { Element.localProtocols.contains($0) } && protocols.contains { !Element.localProtocols.contains($0) }
        func add(_ property: String, role: LocalFile.Role, pattern: Bool) {
            guard let value = string(property), !value.isEmpty else { return }
            var path = value
            if takesURI {
                guard let p = FilePaths.path(fromFileURI: value) else { return }  // a URL, not a file
                path = p
            }
            let isPattern = pattern || role == .writes && path.contains("%")
            out.append(LocalFile(property: property, path: path, role: role, isPattern: isPattern))
        }
        if let h = uriHandler {
            let local = h.protocols.filter { Element.localProtocols.contains($0) }
            guard !local.isEmpty, hasProperty("location") else { return [] }
            add("location", role: h.isSource ? .reads : .writes, pattern: local.contains { Element.patternProtocols.contains($0) })
        } else if let props = Element.fileWriters[factoryName] {
            for p in props where hasProperty(p) { add(p, role: .writes, pattern: false) }
        }
        return out
    }
}

extension Caps {
    /// The media type of each structure (`video/x-raw`, `audio/x-raw`), in order, without repeats.
    public var mediaTypes: [String] {
        var out: [String] = []
        for i in 0..<gst_caps_get_size(raw) {
            guard let s = gst_caps_get_structure(raw, i), let n = gst_structure_get_name(s) else { continue }
            let name = String(cString: n)
            if !out.contains(name) { out.append(name) }
        }
        return out
    }
}
