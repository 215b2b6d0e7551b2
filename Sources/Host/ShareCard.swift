import Foundation
import GStreamerKit
import Overlay
import Stages

/// `viewfinder card`: a 1080x1440 share card (the photo with its rule's diagram and subject box, the
/// score, the advice, the date) drawn with cairo/pango, the photo decoded and the card encoded by GStreamer.
public enum ShareCard {
    /// Card size.
    public static let width = 1080, height = 1440
    /// Where the photo goes (x, y, w, h): a 960x1000 box, the photo fitted, centred across and at the top.
    public static let photoBox = (x: 60, y: 60, width: 960, height: 1000)

    /// What the card shows.
    public struct Content: Sendable {
        /// The photo file.
        public var photo: String
        /// Its record in records.json, when it has one.
        public var record: PhotoRecord?
        /// Date text.
        public var date: String
    }

    /// What the card of `record` shows, its photo read from `photo` (a path the caller has checked).
    public static func content(record: PhotoRecord, photo: String) -> Content {
        Content(photo: photo, record: record, date: dateText(record))
    }

    /// Finds the photo: a number is looked up in `directory`/records.json; a path is used as is, with
    /// its record when its directory has a records.json listing it.
    public static func content(for target: String, directory: String) throws(HostError) -> Content {
        if let id = Int(target), !FileManager.default.fileExists(atPath: target) {
            guard let records = PhotoIndex.load(directory: directory) else {
                throw HostError(.usage, "card: photo id \(id): no readable records.json in '\(directory)' (use --directory or give a file)")
            }
            guard let r = records.first(where: { $0.id == id }) else {
                throw HostError(
                    .usage,
                    "card: no photo with id \(id) in \(directory)/records.json (ids: \(records.map { String($0.id) }.joined(separator: ", ")))"
                )
            }
            return Content(photo: r.path(in: directory), record: r, date: dateText(r))
        }
        guard FileManager.default.fileExists(atPath: target) else {
            throw HostError(.usage, "card: '\(target)' is neither a photo file nor a photo id")
        }
        let dir = FilePaths.directory(of: target)
        let name = FilePaths.fileName(of: target)
        let record = PhotoIndex.load(directory: dir)?.first { FilePaths.fileName(of: $0.file) == name }
        if let record { return Content(photo: target, record: record, date: dateText(record)) }
        let exif = JPEGFile.read(target)?.tags ?? [:]
        return Content(
            photo: target, record: nil, date: exif["datetime"].map { String($0.prefix(19)).replacingOccurrences(of: "T", with: " ") } ?? "")
    }

    static func dateText(_ r: PhotoRecord) -> String {
        String(r.time.prefix(19)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    /// Grid lines that show a rule on the photo; the golden spiral turns towards the subject's quarter.
    static func diagram(rule: String?, subjectCentre: (x: Double, y: Double)? = nil) -> [GridLine] {
        switch rule {
        case "golden":
            switch (subjectCentre.map { $0.x >= 0.5 } ?? false, subjectCentre.map { $0.y >= 0.5 } ?? false) {
            case (false, false): [.golden, .spiralTopLeft]
            case (true, false): [.golden, .spiralTopRight]
            case (false, true): [.golden, .spiralBottomLeft]
            case (true, true): [.golden, .spiralBottomRight]
            }
        case "center": [.center]
        case "horizon": [.thirds]
        case "edges": [.thirds]
        default: [.thirds]
        }
    }

    /// Draws the card.
    public static func render(_ c: Content) throws(HostError) -> BGRAImage {
        guard let jpeg = JPEGFile.read(c.photo) ?? nil, jpeg.width > 0, jpeg.height > 0 else {
            throw HostError(.usage, "card: '\(c.photo)' is not a readable JPEG")
        }
        let box = photoBox
        let scale = min(Double(box.width) / Double(jpeg.width), Double(box.height) / Double(jpeg.height))
        let pw = max(2, Int((Double(jpeg.width) * scale).rounded()) & ~1), ph = max(2, Int((Double(jpeg.height) * scale).rounded()) & ~1)
        let px = box.x + (box.width - pw) / 2, py = box.y
        let decoded: (pixels: [UInt8], stride: Int)
        do { decoded = try ImageFile.decodeBGRA(c.photo, width: pw, height: ph) } catch {
            throw HostError(.runtime, "card: \(error.message)")
        }

        let canvas = Canvas(width: width, height: height)
        canvas.fill(RGBAColor(red: 0.07, green: 0.075, blue: 0.095))
        canvas.translate(dx: Double(px), dy: Double(py))
        canvas.drawImage(BGRAImage(width: pw, height: ph, stride: decoded.stride, pixels: decoded.pixels))
        let r = c.record
        // The subject box in the photo's own pixels (records before `analysisPts` held it in the full frame's).
        let subject: PhotoRecord.Rect? = r.flatMap { r in
            guard let s = r.subject else { return nil }
            guard r.analysisPts == nil, let w = r.cropWindow else { return s }
            return PhotoRecord.Rect(x: s.x - w.x, y: s.y - w.y, width: s.width, height: s.height)
        }
        let centre: (x: Double, y: Double)? = r.flatMap { r in
            subject.map { s in ((s.x + s.width / 2) / Double(r.width), (s.y + s.height / 2) / Double(r.height)) }
        }
        // The rule's diagram over the photo, and the subject's box (in the photo's own pixels after a crop).
        let grid = GridRenderer.render(
            GridStyle(
                lines: diagram(rule: r?.rule, subjectCentre: centre), color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.55), width: 3),
            width: pw, height: ph)
        canvas.drawImage(grid)
        if let r, let s = subject {
            let k = Double(pw) / Double(r.width)
            canvas.strokeRect(
                x: s.x * k, y: s.y * k, width: s.width * k, height: s.height * k,
                color: GuidanceRenderer.goodColor, lineWidth: 4)
        }
        canvas.translate(dx: -Double(px), dy: -Double(py))

        let white = RGBAColor(red: 1, green: 1, blue: 1), grey = RGBAColor(red: 0.7, green: 0.72, blue: 0.78)
        let left = 60.0, textWidth = 960.0
        var y = Double(py + ph) + 50
        if let score = r?.score {
            let pct = Int((score * 100).rounded())
            let s = canvas.drawText("\(pct)", x: left, y: y, fontSize: 120, color: white, backdrop: nil)
            canvas.drawText("/ 100", x: left + s.width + 12, y: y + 70, fontSize: 40, color: grey, backdrop: nil)
            let barX = left + 380, barY = y + 70, barW = textWidth - 380
            canvas.fillRoundedRect(
                x: barX, y: barY, width: barW, height: 26, radius: 13, color: RGBAColor(red: 1, green: 1, blue: 1, alpha: 0.15))
            canvas.fillRoundedRect(
                x: barX, y: barY, width: max(26, barW * min(1, max(0, score))), height: 26, radius: 13,
                color: score >= 0.7 ? GuidanceRenderer.goodColor : GuidanceRenderer.adjustColor)
            y += s.height + 10
        }
        let ruleName: String =
            switch r?.rule {
            case "thirds": "Rule of thirds"
            case "golden": "Golden ratio"
            case "center": "Centre and symmetry"
            case "horizon": "Level horizon"
            case "edges": "Edges and headroom"
            case let other?: other
            case nil: "Photo"
            }
        y += canvas.drawText(ruleName, x: left, y: y, fontSize: 46, color: white, backdrop: nil).height + 8
        if let advice = r?.advice, !advice.isEmpty {
            y +=
                canvas.drawText(
                    fitted(advice, width: textWidth, fontSize: 32, canvas: canvas), x: left, y: y, fontSize: 32, color: grey, backdrop: nil
                ).height + 8
        }
        let footer = Double(height) - 70
        canvas.drawText(c.date, x: left, y: footer, fontSize: 30, color: grey, backdrop: nil)
        let brand = "Viewfinder"
        let bw = canvas.measureText(brand, fontSize: 30).width
        canvas.drawText(brand, x: left + textWidth - bw, y: footer, fontSize: 30, color: grey, backdrop: nil)
        return canvas.image()
    }

    /// `text` cut with an ellipsis so it fits `width` at `fontSize`.
    static func fitted(_ text: String, width: Double, fontSize: Double, canvas: Canvas) -> String {
        if canvas.measureText(text, fontSize: fontSize).width <= width { return text }
        var t = text
        while !t.isEmpty && canvas.measureText(t + "…", fontSize: fontSize).width > width { t.removeLast() }
        return t + "…"
    }

    /// Checks the card's file name before anything is drawn: `.png`, `.jpg` or `.jpeg`, in a writable
    /// directory that exists (usage errors, exit 2; nothing is written).
    public static func checkOutput(_ path: String) throws(HostError) {
        let ext = path.split(separator: ".").count > 1 ? String(path.split(separator: ".").last ?? "").lowercased() : ""
        guard ["png", "jpg", "jpeg"].contains(ext), !path.hasSuffix("/") else {
            throw HostError(.usage, "card: output '\(Echo.value(path))': expected a .png, .jpg or .jpeg file name")
        }
        if let problem = PathCheck.writableFile(path) { throw HostError(.usage, "card: cannot write '\(Echo.value(path))': \(problem)") }
    }

    /// Renders the card and encodes it as JPEG in memory (the control server's `/api/photos/.../card`).
    public static func jpeg(_ c: Content, quality: Int = 92) throws(HostError) -> Data {
        let img = try render(c)
        do {
            return try ImageFile.encodedBGRA(img.pixels, width: img.width, height: img.height, stride: img.stride, quality: quality)
        } catch { throw HostError(.runtime, "card: \(error.message)") }
    }

    /// Renders and writes the card (PNG for `.png`, JPEG otherwise).
    public static func write(_ c: Content, to path: String) throws(HostError) {
        let img = try render(c)
        do { try ImageFile.encodeBGRA(img.pixels, width: img.width, height: img.height, stride: img.stride, to: path) } catch {
            throw HostError(.runtime, "card: \(error.message)")
        }
    }
}
