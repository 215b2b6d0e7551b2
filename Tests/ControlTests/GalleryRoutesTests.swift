import Foundation
import TestSupport
import Testing

/// The gallery routes through the real binary (`viewfinder launch --http`) and real curl, on photos a
/// running capture stage took: listing, file serving (and every traversal refused), delete, share card.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct GalleryRoutesTests {
    /// A closed connection must fail the test's write, not kill the test process.
    init() { signal(SIGPIPE, SIG_IGN) }

    /// What curl saw (`Tools.curl`).
    typealias Download = HTTPAnswer

    /// `curl --path-as-is` (the URL is sent exactly as written: no dot-segment removal, no re-encoding).
    static func get(_ url: String, method: String = "GET") throws -> Download { try Tools.curl(url, method: method) }

    /// records.json's photos, as on disk.
    static func records(_ dir: URL) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("records.json")),
            let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return [] }
        return top["photos"] as? [[String: Any]] ?? []
    }

    /// Fires the shutter and waits until records.json holds `count` photos.
    static func shoot(_ vf: ControlTools.Running, _ dir: URL, until count: Int) throws {
        let shot = try ControlTools.curl("POST", vf.base + "/api/capture")
        #expect(shot.status == 202, "\(shot.body)")
        let deadline = Date().addingTimeInterval(15)
        while records(dir).count < count && Date() < deadline { usleep(50_000) }
        #expect(records(dir).count == count, "\(records(dir)) \(vf.stderr)")
    }

    /// Width and height from a JPEG's start-of-frame marker.
    static func jpegSize(_ d: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](d)
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    /// A capture directory holding, before the run, a symlink IMG_99999.jpg -> /etc/passwd with a forged record
    /// naming it, and a forged record of a file outside the directory (absolute path).
    static func preparedDirectory() throws -> (dir: URL, outside: URL) {
        let dir = Tools.tempDir().appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("IMG_99999.jpg").path, withDestinationPath: "/etc/passwd")
        let outside = Tools.tempDir().appendingPathComponent("mine.jpg")
        try Data("not inside".utf8).write(to: outside)
        let forged = """
            {"version": 1, "photos": [
              {"id": 99998, "file": "\(outside.path)", "time": "2020-01-01T00:00:00.000Z", "width": 1, "height": 1,
               "trigger": "manual", "crop": "none", "exif": {}},
              {"id": 99999, "file": "IMG_99999.jpg", "thumbnail": "IMG_99999.jpg", "time": "2020-01-01T00:00:01.000Z",
               "width": 1, "height": 1, "trigger": "manual", "crop": "none", "exif": {}}
            ]}
            """
        try Data(forged.utf8).write(to: dir.appendingPathComponent("records.json"))
        return (dir, outside)
    }

    static let source = "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1"

    @Test func listsNewestFirstServesListedFilesAndRefusesEveryTraversal() throws {
        let (dir, _) = try Self.preparedDirectory()
        let vf = try ControlTools.launch("\(Self.source) ! capture directory=\(dir.path) auto=false ! fakesink")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        try Self.shoot(vf, dir, until: 3)
        try Self.shoot(vf, dir, until: 4)

        let list = try Self.get(vf.base + "/api/photos")
        #expect(list.status == 200 && list.headers["content-type"] == "application/json", "\(list.text)")
        let dirs = list.json["directories"] as? [[String: Any]] ?? []
        #expect(dirs.count == 1 && dirs.first?["stage"] as? String == "capture0" && dirs.first?["directory"] as? String == dir.path)
        let photos = list.json["photos"] as? [[String: Any]] ?? []
        // Newest first: the two shots (numbered after the forged 99999), then the forged records by their old times.
        #expect(photos.compactMap { $0["id"] as? Int } == [100_001, 100_000, 99999, 99998], "\(list.text)")
        for p in photos.prefix(2) {
            let id = try #require(p["id"] as? Int)
            let name = "IMG_\(id).jpg"
            #expect(p["stage"] as? String == "capture0" && p["file"] as? String == name && p["trigger"] as? String == "manual")
            #expect(p["width"] as? Int == 320 && p["height"] as? Int == 240)
            #expect(p["url"] as? String == "/photos/capture0/\(name)")
            #expect(p["thumbUrl"] as? String == "/photos/capture0/thumbs/\(name)")
            #expect(p["cardUrl"] as? String == "/api/photos/capture0/\(id)/card")
            // Each URL gives exactly the bytes on disk.
            let photo = try Self.get(vf.base + "/photos/capture0/\(name)")
            #expect(photo.status == 200 && photo.headers["content-type"] == "image/jpeg" && photo.headers["cache-control"] == "no-cache")
            #expect(photo.body == (try Data(contentsOf: dir.appendingPathComponent(name))))
            let thumb = try Self.get(vf.base + "/photos/capture0/thumbs/\(name)")
            let thumbOnDisk = try Data(contentsOf: dir.appendingPathComponent("thumbs/" + name))
            #expect(thumb.status == 200 && thumb.body == thumbOnDisk)
            #expect(Self.jpegSize(thumb.body).map { [$0.width, $0.height] } == [300, 225])
        }
        // The forged records are listed but given no URL: one points out by a symlink, one is absolute outside.
        for p in photos.suffix(2) {
            #expect(p["url"] == nil && p["thumbUrl"] == nil && p["cardUrl"] == nil, "\(p)")
        }

        // Every way out of the directory, raw and encoded, and files it holds that are no photo: 404, never passwd.
        let refused = [
            "/photos/capture0/../records.json", "/photos/capture0/%2e%2e/x", "/photos/capture0/..%2f..%2fetc%2fpasswd",
            "/photos/capture0//etc/passwd", "/photos/capture0/records.json", "/photos/capture0/IMG_99999.jpg",
            "/photos/capture0/../../../../etc/passwd", "/photos/capture0/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
            "/photos/capture0/%252e%252e%252frecords.json", "/photos/capture0/IMG_100000.jpg%00", "/photos/capture0/..%5crecords.json",
            "/photos/capture0/./IMG_100000.jpg", "/photos/capture0/thumbs/../IMG_100000.jpg", "/photos/capture0/IMG%5f100000.jpg",
            "/photos/capture0/%2fetc%2fpasswd", "/photos/capture0/thumbs", "/photos/capture0/.partial", "/photos/nope/IMG_100000.jpg",
            "/photos/capture0/", "/photos/capture0/IMG_100000.jpg/", "/photos//capture0/IMG_100000.jpg",
        ]
        for path in refused {
            let r = try Self.get(vf.base + path)
            #expect(r.status == 404, "\(path): \(r.status) \(r.text.prefix(200))")
            #expect(!r.text.contains("root:"), "\(path) leaked /etc/passwd")
        }
        // A raw backslash too (curl sends it as is).
        let backslash = try Self.get(vf.base + "/photos/capture0/..\\records.json")
        #expect(backslash.status == 404, "\(backslash.status)")
        // Serving is GET only.
        let post = try Self.get(vf.base + "/photos/capture0/IMG_100000.jpg", method: "POST")
        #expect(post.status == 405 && post.headers["allow"] == "GET", "\(post.status)")

        let stop = try ControlTools.curl("POST", vf.base + "/api/stop")
        #expect(stop.status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }

    @Test func deleteRemovesFilesAndRecordForGoodAndTheCardIsA1080x1440JPEG() throws {
        let (dir, outside) = try Self.preparedDirectory()
        let vf = try ControlTools.launch("\(Self.source) ! capture directory=\(dir.path) auto=false ! fakesink")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        try Self.shoot(vf, dir, until: 3)
        try Self.shoot(vf, dir, until: 4)
        let fm = FileManager.default
        let api = vf.base + "/api/photos"

        // No state change by GET; only DELETE deletes.
        let get = try Self.get(api + "/capture0/100000")
        #expect(get.status == 405 && get.headers["allow"] == "DELETE", "\(get.text)")
        let postDelete = try Self.get(api + "/capture0/100000/delete", method: "POST")
        #expect(postDelete.status == 404, "\(postDelete.text)")
        #expect(fm.fileExists(atPath: dir.appendingPathComponent("IMG_100000.jpg").path))

        let gone = try Self.get(api + "/capture0/100000", method: "DELETE")
        #expect(gone.status == 200, "\(gone.text)")
        let removed = gone.json["photo"] as? [String: Any] ?? [:]
        #expect(
            removed["id"] as? Int == 100_000 && removed["file"] as? String == "IMG_100000.jpg" && removed["stage"] as? String == "capture0")
        #expect(gone.json["removedFiles"] as? [String] == ["IMG_100000.jpg", "thumbs/IMG_100000.jpg"])
        #expect(gone.json["warnings"] as? [String] == [])
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("IMG_100000.jpg").path))
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("thumbs/IMG_100000.jpg").path))
        #expect(!Self.records(dir).contains { $0["id"] as? Int == 100_000 })
        // The next photo rewrites records.json from the stage's memory: the deleted record does not come back.
        try Self.shoot(vf, dir, until: 4)
        let ids = Self.records(dir).compactMap { $0["id"] as? Int }
        #expect(ids == [99998, 99999, 100_001, 100_002], "\(ids)")
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("IMG_100000.jpg").path))
        let again = try Self.get(api + "/capture0/100000", method: "DELETE")
        #expect(again.status == 404 && again.json["field"] as? String == "id", "\(again.text)")
        #expect(try Self.get(api + "/nope/100001", method: "DELETE").status == 404)
        #expect(try Self.get(api + "/capture0/abc", method: "DELETE").status == 404)

        // A record naming a file outside the directory: the record goes, the file stays, said in warnings.
        let forged = try Self.get(api + "/capture0/99998", method: "DELETE")
        #expect(forged.status == 200, "\(forged.text)")
        #expect(forged.json["removedFiles"] as? [String] == [])
        #expect(forged.json["warnings"] as? [String] == ["\(outside.path): not removed: it lies outside \(dir.path)"], "\(forged.text)")
        #expect(fm.fileExists(atPath: outside.path))

        // The share card: a 1080x1440 JPEG download named after the photo.
        let card = try Self.get(api + "/capture0/100001/card")
        #expect(card.status == 200, "\(card.text.prefix(300))")
        #expect(card.headers["content-type"] == "image/jpeg")
        #expect(card.headers["content-disposition"] == "attachment; filename=\"IMG_100001_card.jpg\"")
        #expect(Self.jpegSize(card.body).map { [$0.width, $0.height] } == [1080, 1440])
        // No card of a photo outside the directory (the symlink to /etc/passwd), nor of an unknown one.
        let symlinked = try Self.get(api + "/capture0/99999/card")
        #expect(symlinked.status == 404 && !symlinked.text.contains("root:"), "\(symlinked.text)")
        #expect(try Self.get(api + "/capture0/4242/card").status == 404)
        #expect(try Self.get(api + "/capture0/100001/card", method: "DELETE").status == 405)

        let stop = try ControlTools.curl("POST", vf.base + "/api/stop")
        #expect(stop.status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
        // After the run: still not back (the stage's close and a reopen reconcile from records.json).
        #expect(!Self.records(dir).contains { $0["id"] as? Int == 100_000 })
    }

    /// Two capture stages, two directories: both listed, each file under its own stage only.
    @Test func everyCaptureStageIsListedWithItsOwnDirectory() throws {
        let a = Tools.tempDir().appendingPathComponent("a"), b = Tools.tempDir().appendingPathComponent("b")
        let vf = try ControlTools.launch(
            "\(Self.source) ! capture directory=\(a.path) auto=false ! capture directory=\(b.path) auto=false thumbnails=false ! fakesink")
        defer { if vf.process.isRunning { kill(vf.process.processIdentifier, SIGKILL) } }
        let shot = try ControlTools.curl("POST", vf.base + "/api/capture")
        #expect(shot.status == 202, "\(shot.body)")
        let deadline = Date().addingTimeInterval(15)
        while (Self.records(a).isEmpty || Self.records(b).isEmpty) && Date() < deadline { usleep(50_000) }

        let list = try Self.get(vf.base + "/api/photos")
        let dirs = (list.json["directories"] as? [[String: Any]] ?? []).map { [$0["stage"] as? String, $0["directory"] as? String] }
        #expect(dirs == [["capture0", a.path], ["capture1", b.path]], "\(list.text)")
        let photos = list.json["photos"] as? [[String: Any]] ?? []
        #expect(Set(photos.compactMap { $0["url"] as? String }) == ["/photos/capture0/IMG_00001.jpg", "/photos/capture1/IMG_00001.jpg"])
        #expect(photos.first { $0["stage"] as? String == "capture1" }?["thumbUrl"] == nil)
        let fromA = try Self.get(vf.base + "/photos/capture0/IMG_00001.jpg")
        let fromB = try Self.get(vf.base + "/photos/capture1/IMG_00001.jpg")
        #expect(fromA.body == (try Data(contentsOf: a.appendingPathComponent("IMG_00001.jpg"))))
        #expect(fromB.body == (try Data(contentsOf: b.appendingPathComponent("IMG_00001.jpg"))))
        // capture1 made no thumbnail: capture0's thumbs/ name is not served under capture1.
        #expect(try Self.get(vf.base + "/photos/capture1/thumbs/IMG_00001.jpg").status == 404)
        #expect(try Self.get(vf.base + "/photos/capture0/thumbs/IMG_00001.jpg").status == 200)

        let stop = try ControlTools.curl("POST", vf.base + "/api/stop")
        #expect(stop.status == 202)
        #expect(vf.finish() == 0, "\(vf.stderr)")
    }
}
