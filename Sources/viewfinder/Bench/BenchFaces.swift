import Foundation
import Host
import ViewfinderBench

/// `bench faces`: facedetect (OpenCV) against compose's face engines on a real video, and face recall on the
/// labelled photos.
struct BenchFaces: BenchKind {
    static let name = "faces"
    /// The video: `--video`, else opencv-doc's vtest.avi from launch/testdata; absolute.
    let video: String
    let frames: Int
    /// How many labelled photos the recall uses (`--photos`), nil for all.
    let photos: Int?

    init(_ arguments: BenchArguments) { video = Self.videoPath(arguments); frames = arguments.frames; photos = arguments.photos }

    static func videoPath(_ arguments: BenchArguments) -> String { URL(fileURLWithPath: arguments.video ?? ".testdata/vtest.avi").path }

    /// The common checks, then the video: it must exist and not be a directory.
    static func check(_ arguments: BenchArguments) throws(HostError) {
        try arguments.checkCommon(takesSeconds: takesSeconds)
        try arguments.refuseCount(takesPhotos: true)
        if let photos = arguments.photos, !(1...1000).contains(photos) {
            throw HostError(.usage, "bad value '\(photos)' for --photos: expected 1 - 1000")
        }
        let video = videoPath(arguments)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: video, isDirectory: &isDirectory) else {
            throw HostError(
                .usage,
                "bench faces: video '\(video)' does not exist (run launch/testdata for opencv-doc's vtest.avi, or pass --video FILE)")
        }
        guard !isDirectory.boolValue else {
            throw HostError(.usage, "bench faces: video '\(video)' is a directory: expected a video file")
        }
    }

    func run() throws {
        print(
            "bench faces: \(video) at 640x480, \(frames) frames; facedetect (OpenCV) vs compose engine=faces, scale 1.1, 5 neighbours, 24 px"
        )
        let r = try Bench.faces(video: video, frames: frames)
        print("hits: facedetect \(r.facedetectHits), ours \(r.ourHits); frames agreeing \(r.agreeingFrames)/\(r.frames)")
        if let c = r.cnn {
            print(
                String(
                    format:
                        "cnn (YuNet, compose engine=cnn, 1 thread): %.1f fps, %.2fx facedetect; hits %d; "
                        + "frames agreeing with facedetect %d/%d",
                    c.fps, r.facedetectFPS > 0 ? c.fps / r.facedetectFPS : 0, c.hits, c.agreeingFrames, r.frames))
        } else if let why = r.cnnMissing {
            print("cnn: not measured: \(why)")
        }
        if let p = r.people {
            print(
                String(
                    format: "people (HOG, compose engine=people, searched at 960x720): %.1f fps, %.2fx facedetect; "
                        + "frames with people %d/%d",
                    p.fps, r.facedetectFPS > 0 ? p.fps / r.facedetectFPS : 0, p.framesWithPeople, p.frames))
        }
        print(String(format: "facedetect %.1f fps, ours %.1f fps, ratio %.2f", r.facedetectFPS, r.oursFPS, r.ratio))
        let labels = URL(fileURLWithPath: "Tests/FrameAnalysisTests/Fixtures/face_labels.json")
        let photos = URL(fileURLWithPath: ".testdata/faces")
        if FileManager.default.fileExists(atPath: labels.path), FileManager.default.fileExists(atPath: photos.path) {
            let which = self.photos.map { "the first \($0) of " } ?? ""
            print("face recall on \(which)the labelled real photos (\(labels.path), \(photos.path), 640 px, IoU 0.5):")
            for (engine, s) in try Bench.faceRecall(labels: labels, photos: photos, limit: self.photos) {
                print("  \(engine): \(s.line)")
            }
        } else {
            print("face recall: not measured (run from the repository after launch/testdata: needs \(labels.path) and \(photos.path))")
        }
    }
}
