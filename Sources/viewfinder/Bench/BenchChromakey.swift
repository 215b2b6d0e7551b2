import Foundation
import ViewfinderBench

/// `bench chromakey`: alpha method=custom against chromakey, and matte IoU on real composites.
struct BenchChromakey: BenchKind {
    static let name = "chromakey"
    let frames: Int

    init(_ arguments: BenchArguments) { frames = arguments.frames }

    func run() throws {
        print("bench chromakey: 1920x1080 RGBA green screen, \(frames) frames; peer: alpha method=custom, same colour")
        let r = try Bench.chromakey(frames: frames)
        let testdata = URL(fileURLWithPath: ".testdata")
        if FileManager.default.fileExists(atPath: testdata.appendingPathComponent("keying/.complete").path) {
            print("matte IoU on real composites (labelme's VOC photos, people pasted by their polygons; \(testdata.path)/keying):")
            for m in try Bench.chromakeyMattes(testdata: testdata) { print(m.line) }
        } else {
            print("matte IoU: not measured (run from the repository after launch/testdata: needs .testdata/keying)")
        }
        print(String(format: "alpha %.1f fps, chromakey %.1f fps, ratio %.2f", r.alphaFPS, r.oursFPS, r.ratio))
    }
}
