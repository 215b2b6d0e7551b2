import Foundation
import GStreamerKit
import Testing

/// Paths by GLib, and which elements read or write local files, decided from the element.
@Suite struct LocalFilesTests {
    @Test func directoryAndFileNameOfOneCharacterAndTrailingSlashPaths() {
        // Foundation's NSString.deletingLastPathComponent traps on "a", "5", "." and "a/".
        let cases: [(String, String, String)] = [
            ("a", ".", "a"), ("5", ".", "5"), (".", ".", "."), ("a/", ".", "a"), ("a//", ".", "a"),
            ("d/a", "d", "a"), ("/a", "/", "a"), ("/", "/", "/"), ("sub dir/it's.mp4", "sub dir", "it's.mp4"),
            ("/tmp/x/%05d.jpg", "/tmp/x", "%05d.jpg"),
        ]
        for (path, dir, name) in cases {
            #expect(FilePaths.directory(of: path) == dir, "directory of '\(path)'")
            #expect(FilePaths.fileName(of: path) == name, "file name of '\(path)'")
        }
        #expect(FilePaths.join("d", "x") == "d/x")
        #expect(FilePaths.join("d/", "x") == "d/x")
        #expect(FilePaths.join("", "x") == "x")
    }

    /// realpath(3): symlinks and dot segments resolved; nil for what does not exist.
    @Test func realPathResolvesSymlinksAndDotSegments() throws {
        let d = try #require(FilePaths.realPath(NSTemporaryDirectory())) + "/vf-real-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d + "/inside", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: d + "/out", withDestinationPath: "/etc")
        #expect(FilePaths.realPath(d + "/inside/../inside/.") == d + "/inside")
        #expect(FilePaths.realPath(d + "/out/passwd") == "/etc/passwd")
        #expect(FilePaths.realPath(d + "/missing") == nil)
        #expect(FilePaths.realPath("") == nil)
        #expect(FilePaths.realPath(d + "\u{0}/inside") == nil)
    }

    @Test func urisAndTheirSchemes() {
        #expect(FilePaths.scheme(of: "rtsp://127.0.0.1:9/x") == "rtsp")
        #expect(FilePaths.scheme(of: "a") == nil)
        #expect(FilePaths.path(fromFileURI: "file:///tmp/a%20b") == "/tmp/a b")
        #expect(FilePaths.path(fromFileURI: "http://x/y") == nil)
    }

    private func element(_ description: String, _ name: String) throws -> Element {
        try #require(try Pipeline.parse(description).element(named: name))
    }

    @Test func fileElementsAreKnownByTheirURIHandlerNotByTheirPropertyName() throws {
        let filesrc = try element("filesrc name=e location=a ! fakesink", "e")
        #expect(filesrc.uriHandler?.isSource == true && filesrc.uriHandler?.protocols == ["file"])
        #expect(filesrc.localFiles == [LocalFile(property: "location", path: "a", role: .reads, isPattern: false)])
        // filesrc takes file names literally: "file:///x" is a file of that name.
        #expect(try element("filesrc name=e location=file:///x ! fakesink", "e").localFiles.map(\.path) == ["file:///x"])
        #expect(
            try element("videotestsrc ! filesink name=e location=5", "e").localFiles
                == [LocalFile(property: "location", path: "5", role: .writes, isPattern: false)])
        #expect(try element("multifilesrc name=e location=%05d.jpg ! fakesink", "e").localFiles.map(\.isPattern) == [true])
        #expect(
            try element("videotestsrc ! multifilesink name=e location=s/%05d.jpg", "e").localFiles
                == [LocalFile(property: "location", path: "s/%05d.jpg", role: .writes, isPattern: true)])
        #expect(try element("videotestsrc ! x264enc ! splitmuxsink name=e location=v%02d.mp4", "e").localFiles.map(\.role) == [.writes])
        // giosrc handles remote schemes too: its location is a URI; a file:// one is a local file.
        #expect(try element("giosrc name=e location=file:///tmp/x ! fakesink", "e").localFiles.map(\.path) == ["/tmp/x"])
        #expect(try element("giosrc name=e location=sftp://h/x ! fakesink", "e").localFiles.isEmpty)
        // URLs are not files.
        #expect(try element("rtspsrc name=e location=rtsp://127.0.0.1:9/x ! fakesink", "e").localFiles.isEmpty)
        #expect(try element("souphttpsrc name=e location=http://127.0.0.1:9/x ! fakesink", "e").localFiles.isEmpty)
        #expect(try element("videotestsrc ! x264enc ! flvmux ! rtmpsink name=e location=rtmp://127.0.0.1/x", "e").localFiles.isEmpty)
        #expect(try element("videotestsrc ! fakesink name=e", "e").localFiles.isEmpty)
    }

    @Test func mediaTypesOfCaps() throws {
        #expect(try Caps("audio/x-raw,rate=48000; audio/x-raw,rate=44100; video/x-raw").mediaTypes == ["audio/x-raw", "video/x-raw"])
    }

    @Test func appendFileAppendsWithoutSeekingAndReportsErrno() throws {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-append-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        let path = d + "/m.jsonl"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        let f = try AppendFile(path: path)
        #expect(f.write(Array("new\n".utf8)) == nil)
        f.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\nnew\n")
        let full = try AppendFile(path: "/dev/full")
        #expect(full.write([0x41]) == "No space left on device")
        #expect(throws: GStreamerError.self) { _ = try AppendFile(path: d + "/no/such/dir/m.jsonl") }
    }

    @Test func appendFileOnAFIFOWaitsForItsReaderAndDeliversLines() throws {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("vf-fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        let fifo = d + "/f"
        #expect(mkfifo(fifo, 0o644) == 0)
        let received = ReceivedText()
        let reader = Thread {
            guard let h = FileHandle(forReadingAtPath: fifo) else { return }
            received.set(String(decoding: h.readDataToEndOfFile(), as: UTF8.self))
        }
        reader.start()
        var waited = false
        let f = try AppendFile(path: fifo) { waited = true }
        #expect(f.write(Array("{\"a\":1}\n".utf8)) == nil)
        #expect(f.write(Array("{\"a\":2}\n".utf8)) == nil)
        f.close()
        for _ in 0..<200 where received.get() == nil { usleep(10_000) }
        #expect(received.get() == "{\"a\":1}\n{\"a\":2}\n")
        _ = waited  // either order is fine: the reader may or may not be there first
    }
}

final class ReceivedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ t: String) { lock.lock(); text = t; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return text }
}
