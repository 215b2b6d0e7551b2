import Diagnostics
import FrameAnalysis
import GStreamerKit
import Synchronization

/// Builds the detection engines `engine=` can use, from Debian's opencv-data cascades.
public enum ComposeEngines {
    /// `minFace` is in analysed pixels; OpenCV's frontal cascade cannot go below its 24 px window.
    public struct FaceOptions: Sendable {
        public var verify = true, profiles = true, rotations = false, cnnThreads = 1
        /// compose's defaults (verify, profiles, no rotations, 1 cnn thread).
        public init(verify: Bool = true, profiles: Bool = true, rotations: Bool = false, cnnThreads: Int = 1) {
            self.verify = verify; self.profiles = profiles; self.rotations = rotations; self.cnnThreads = cnnThreads
        }
    }

    /// The parts `engine=auto`'s HOG search is cut into (one per turn of `fallbacks=staggered`): ~110 ms at 960x540
    /// becomes ~18 ms a turn, about a face cascade pass or the upper-body cascade (bench analysis).
    public static let autoPeopleSlices = 6

    /// Whether `engine=auto`'s fallback (no cnn library) was reported (`Log.stages`): once per process.
    private static let fallbackReported = Mutex(false)

    /// The engines for `engine`. `engine=cnn` without its library is a usage error (exit 2 before anything
    /// runs) naming the file and `launch/setup`; `engine=auto` then goes on with the cascades and says so
    /// once on stderr.
    public static func make(_ engine: ComposeStage.Engine, minFace: Int, faces o: FaceOptions, stage: String) throws(StageError)
        -> [any DetectionEngine]
    {
        func cnn() throws(CNNFaceEngine.LoadError) -> CNNFaceEngine { try CNNFaceEngine(threads: o.cnnThreads, minFace: minFace) }
        var first: [any DetectionEngine] = []
        switch engine {
        case .cnn:
            do { return [try cnn()] } catch { throw StageError(.usage, "\(stage): engine=cnn: \(error)") }
        case .auto:
            do { first = [try cnn()] } catch {
                let report = fallbackReported.withLock { r in
                    defer { r = true }
                    return !r
                }
                if report {
                    Log.stages.say(.notice, "\(stage): engine=auto: no cnn engine (\(error)); using the face cascades")
                }
            }
        default: break
        }
        do {
            func face() throws -> FaceEngine {
                try FaceEngine(minFace: max(24, minFace), verify: o.verify, rotations: o.rotations, profiles: o.profiles)
            }
            switch engine {
            case .faces: return [try face()]
            case .bodies: return [try BodyEngine()]
            case .people: return [PeopleEngine()]
            case .saliency: return [SaliencyEngine()]
            case .upstream: return [FixedDetections(detections: [])]
            case .cnn: return first
            // People (HOG) before the cascades: on vtest it finds the walkers the full-body cascade finds, with
            // fewer false boxes (figures in PeopleEngineTests), so the full-body cascade is left out; the
            // upper-body cascade stays behind it for people too close for HOG's whole-body window (head and
            // shoulders filling the frame), and runs only when HOG finds no one.
            // HOG's search is cut into `autoPeopleSlices` parts: compose's `FallbackRotation` runs one per turn
            // (`engine=people` and `fallbacks=all` still search whole).
            case .auto:
                return first + [try face(), PeopleEngine(slices: autoPeopleSlices), try BodyEngine(fullBody: false), SaliencyEngine()]
            }
        } catch {
            throw StageError(.resource, "\(stage): cannot load the \(engine.rawValue) engine: \(error) (install opencv-data)")
        }
    }

    /// The input's `min-face` in analysed pixels.
    public static func analysedMinFace(_ minFace: Int, analysisWidth: Int, inputWidth: Int) -> Int {
        Int((Double(minFace) * Double(analysisWidth) / Double(max(1, inputWidth))).rounded())
    }
}
