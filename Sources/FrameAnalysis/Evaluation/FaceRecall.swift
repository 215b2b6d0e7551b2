import Foundation

/// A photo with its faces labelled by hand (see `Tests/FrameAnalysisTests/Fixtures/face_labels.json`, which says
/// how the boxes were drawn). Boxes are in the photo's own pixels.
public struct LabelledPhoto: Sendable, Codable, Equatable {
    /// The photo's file name without extension (`.testdata/faces/NAME.ppm`).
    public var name: String
    /// The photo's size in pixels.
    public var width: Int
    /// The photo's size in pixels.
    public var height: Int
    /// Every human face a viewer sees at once (frontal, three-quarter, profile), hairline to chin, ear to ear.
    public var faces: [Box]
    /// Regions where a detection is neither a hit nor a false face: a crowd too blurred to label face by face, a
    /// face mostly hidden by a hand or cut by the frame, a portrait hanging on a wall.
    public var ignore: [Box]
    /// Creates a labelled photo.
    public init(name: String, width: Int, height: Int, faces: [Box], ignore: [Box] = []) {
        self.name = name; self.width = width; self.height = height; self.faces = faces; self.ignore = ignore
    }
}

/// Recall and false faces of a face engine on labelled photos, the way the engine sees them in a stream: each photo
/// is scaled (area average) so its longer side is `longSide` pixels, like a stage's analysis frame, and the engine
/// runs on that.
///
/// Matching: detections that are faces (`face`, `profile-face`), most confident first, each take the unmatched label
/// with the highest IoU if it is at least `minIoU` (0.5, as in PASCAL VOC / WIDER FACE). A detection left over is a
/// false face unless its centre lies in an `ignore` region or inside a label already matched (a second box on the
/// same face counts once, as a duplicate, not as a miss or a false face). Labels whose shorter side is under
/// `minFace` analysed pixels are too small for any engine at that scale: they become ignore regions, not misses.
public struct FaceRecall: Sendable {
    /// The longer side of the analysed image.
    public var longSide: Int
    /// IoU a detection needs with a label to count as finding it.
    public var minIoU: Double
    /// Labels smaller than this (shorter side, analysed pixels) are not counted.
    public var minFace: Double

    /// Creates an evaluator.
    public init(longSide: Int = 640, minIoU: Double = 0.5, minFace: Double = 20) {
        self.longSide = longSide; self.minIoU = minIoU; self.minFace = minFace
    }

    /// What one engine did on one photo.
    public struct PhotoResult: Sendable, Equatable {
        /// The photo.
        public var name: String
        /// Labelled faces counted (big enough at the analysed scale).
        public var faces: Int
        /// Of those, found.
        public var found: Int
        /// Face detections matching no label and no ignore region.
        public var falseFaces: Int
        /// The labels not found (analysed pixels).
        public var missed: [Box]
        /// For each label not found, the best IoU any face detection had with it (0: nothing near): a near miss
        /// (0.3...0.5) is a box drawn another way, not a face overlooked.
        public var nearest: [Double]
        /// The false detections (analysed pixels).
        public var falseBoxes: [Box]
    }

    /// Totals over a set of photos.
    public struct Summary: Sendable, Equatable {
        /// One result per photo, in the order given.
        public var photos: [PhotoResult]
        /// Labelled faces counted.
        public var faces: Int { photos.reduce(0) { $0 + $1.faces } }
        /// Faces found.
        public var found: Int { photos.reduce(0) { $0 + $1.found } }
        /// Found / counted (1 when nothing is labelled).
        public var recall: Double { faces > 0 ? Double(found) / Double(faces) : 1 }
        /// False faces over all photos.
        public var falseFaces: Int { photos.reduce(0) { $0 + $1.falseFaces } }
        /// Photos evaluated.
        public var count: Int { photos.count }
        /// False faces per 20 photos (the unit).
        public var falsePer20: Double { count > 0 ? Double(falseFaces) * 20 / Double(count) : 0 }
        /// "recall 0.97 (58/60), 1 false face in 39 photos (0.51 per 20)".
        public var line: String {
            String(
                format: "recall %.3f (%d/%d), %d false %@ in %d photos (%.2f per 20)", recall, found, faces, falseFaces,
                falseFaces == 1 ? "face" : "faces", count, falsePer20)
        }
    }

    /// The scale factor from the photo to the analysed image (1 for a photo already small enough).
    public func scale(for photo: LabelledPhoto) -> Double {
        min(1, Double(longSide) / Double(max(1, max(photo.width, photo.height))))
    }

    /// `image` (the photo at full size) scaled so its longer side is `longSide` (never enlarged).
    public func analysed(_ image: RGBImage) -> RGBImage {
        let s = Double(longSide) / Double(max(1, max(image.width, image.height)))
        if s >= 1 { return image }
        return image.areaResized(width: max(1, Int((Double(image.width) * s).rounded())), height: max(1, Int((Double(image.height) * s).rounded())))
    }

    /// Scores `detections` (analysed pixels, from the image `analysed(photo image)`) against the photo's labels.
    public func score(_ detections: [Detection], on photo: LabelledPhoto) -> PhotoResult {
        let s = scale(for: photo)
        var labels: [Box] = [], ignore = photo.ignore.map { $0.scaled(s, s) }
        for f in photo.faces.map({ $0.scaled(s, s) }) {
            if min(f.width, f.height) < minFace { ignore.append(f) } else { labels.append(f) }
        }
        let faces = detections.filter { $0.kind == .face || $0.kind == .profileFace }.sorted { $0.confidence > $1.confidence }
        var matched = [Bool](repeating: false, count: labels.count)
        var falseBoxes: [Box] = []
        for d in faces {
            var best = -1, bestIoU = minIoU
            for (i, l) in labels.enumerated() where !matched[i] {
                let v = d.box.iou(l)
                if v >= bestIoU { best = i; bestIoU = v }
            }
            if best >= 0 { matched[best] = true; continue }
            let c = d.box.center
            func inside(_ b: Box) -> Bool { c.x >= b.x && c.x <= b.x + b.width && c.y >= b.y && c.y <= b.y + b.height }
            if ignore.contains(where: inside) || labels.contains(where: inside) { continue }
            falseBoxes.append(d.box)
        }
        let missed = labels.indices.filter { !matched[$0] }.map { labels[$0] }
        let nearest = missed.map { l in faces.map { $0.box.iou(l) }.max() ?? 0 }
        return PhotoResult(
            name: photo.name, faces: labels.count, found: labels.count - missed.count, falseFaces: falseBoxes.count,
            missed: missed, nearest: nearest, falseBoxes: falseBoxes)
    }

    /// The photos as the engines see them: each loaded (`load` gives its full-size pixels) and scaled by `analysed`.
    /// Prepare once, evaluate every engine on the result.
    public func prepare(_ photos: [LabelledPhoto], load: (LabelledPhoto) throws -> RGBImage) rethrows -> [(LabelledPhoto, RGBImage)] {
        try photos.map { ($0, analysed(try load($0))) }
    }

    /// Runs `detect` on every prepared photo and scores it.
    public func evaluate(_ prepared: [(LabelledPhoto, RGBImage)], detect: (RGBImage) -> [Detection]) -> Summary {
        Summary(photos: prepared.map { score(detect($0.1), on: $0.0) })
    }

    /// Every face engine on the prepared photos, the figures `FaceRecallTests` and `bench faces` print, in order:
    /// "cascade" (profiles, no verification), "cascade+verify", then "cnn" and "auto" (cnn, then the verified
    /// cascade) when the cnn's library loads, else "auto (no cnn)" (the verified cascade alone).
    /// - Throws: the cascades' `CascadeError` when opencv-data's files are missing.
    public func evaluateEngines(_ prepared: [(LabelledPhoto, RGBImage)]) throws -> [(engine: String, summary: Summary)] {
        let cascade = try FaceEngine(verify: false, rotations: false, profiles: true)
        let verified = try FaceEngine(verify: true, rotations: false, profiles: true)
        // Each engine's detections once per photo: the two cascade engines share their passes (they differ in
        // verification only), and auto's chain is read from the cnn's and the verified cascade's detections (the
        // first of them that found anything), as `autoChain` would compute them again.
        let both = prepared.map { cascade.detect(in: $0.1, alsoAs: verified) }
        func summary(_ detections: [[Detection]]) -> Summary {
            Summary(photos: zip(prepared, detections).map { score($1, on: $0.0) })
        }
        var out: [(engine: String, summary: Summary)] = [
            ("cascade", summary(both.map(\.mine))),
            ("cascade+verify", summary(both.map(\.other))),
        ]
        if let cnn = try? CNNFaceEngine(threads: 1, minFace: 0) {
            let net = prepared.map { cnn.detect(in: $0.1) }
            out.append(("cnn", summary(net)))
            out.append(("auto", summary(zip(net, both).map { $0.isEmpty ? $1.other : $0 })))
        } else {
            out.append(("auto (no cnn)", summary(both.map(\.other))))
        }
        return out
    }

    /// The faces `engine=auto` reports: the first engine of the chain that finds anything supplies the detections
    /// (as `CompositionAnalyzer` does), and only its faces count (bodies and saliency are not faces).
    public static func autoChain(_ engines: [any DetectionEngine]) -> (RGBImage) -> [Detection] {
        { image in
            for e in engines {
                let d = e.detect(in: image)
                if !d.isEmpty { return d }
            }
            return []
        }
    }
}

/// The labelled photo set (`face_labels.json`): where the photos come from and how they were labelled, and the
/// labels.
public struct FaceLabelSet: Sendable, Codable {
    /// How the photos were chosen and the boxes drawn.
    public var method: [String]
    /// The photos, with faces and without.
    public var photos: [LabelledPhoto]

    /// Reads the set from a JSON file.
    public static func load(_ url: URL) throws -> FaceLabelSet {
        try JSONDecoder().decode(FaceLabelSet.self, from: Data(contentsOf: url))
    }
}

extension RGBImage {
    /// Downscaled by area averaging (each output pixel the mean of the input pixels it covers, fractional edges
    /// weighted), as videoscale's smooth methods approximate; for enlarging, nearest pixel.
    public func areaResized(width w: Int, height h: Int) -> RGBImage {
        precondition(w > 0 && h > 0)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        // Per output column: the input columns it covers and their weights (shared by every row).
        var cols: [[(Int, Double)]] = []
        cols.reserveCapacity(w)
        for ox in 0..<w {
            let x0 = Double(ox) * sx, x1 = min(Double(width), x0 + max(sx, 1))
            var c: [(Int, Double)] = []
            var x = Int(x0)
            while Double(x) < x1 && x < width {
                let wgt = min(Double(x + 1), x1) - max(Double(x), x0)
                if wgt > 0 { c.append((x, wgt)) }
                x += 1
            }
            cols.append(c)
        }
        var acc = [Double](repeating: 0, count: w * 3)
        for oy in 0..<h {
            for i in acc.indices { acc[i] = 0 }
            let y0 = Double(oy) * sy, y1 = min(Double(height), y0 + max(sy, 1))
            var total = 0.0
            var y = Int(y0)
            while Double(y) < y1 && y < height {
                let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                if wy > 0 {
                    total += wy
                    let row = y * width * 3
                    for ox in 0..<w {
                        var r = 0.0, g = 0.0, b = 0.0
                        for (x, wx) in cols[ox] {
                            let p = row + x * 3
                            r += Double(pixels[p]) * wx; g += Double(pixels[p + 1]) * wx; b += Double(pixels[p + 2]) * wx
                        }
                        acc[ox * 3] += r * wy; acc[ox * 3 + 1] += g * wy; acc[ox * 3 + 2] += b * wy
                    }
                }
                y += 1
            }
            for ox in 0..<w {
                let norm = total * cols[ox].reduce(0) { $0 + $1.1 }
                for k in 0..<3 {
                    out[(oy * w + ox) * 3 + k] = UInt8(max(0, min(255, (acc[ox * 3 + k] / max(norm, 1e-9)).rounded())))
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }
}
