import FrameAnalysis
import GStreamerKit
import Overlay

/// What `compose` keeps between frames, one value type per lock (lock order: see `ComposeStage`): the
/// user-set `Settings`, the video thread's `State` (schedule and drawing caches), the analysis thread's
/// `Analysis`, the published `Results`; and the `Job` handed from the video thread to the analysis thread.
extension ComposeStage {
    /// One analysis request: a small copy of a frame and where it came from.
    /// The copy (nearest-neighbour RGB at the analysis size) is made on the video thread before anything
    /// is drawn, so the frame itself is never held by the analysis thread: drawing then writes in place
    /// (no full-frame copy-on-write) and the analysis still sees clean pixels. At most two jobs are held.
    struct Job: Sendable {
        var reduced: VideoFrame?; var format: String; var pts: UInt64?; var index: Int; var inputWidth: Int; var inputHeight: Int
    }

    struct Settings { var overlay: Bool; var grid: [GridMark]; var fps: Double; var textScale: Double; var rule: String }
    struct State {
        var firstPTS: UInt64?
        /// The newest frame's time (its pts, or duration x index without one): "now" in stream time for the metrics.
        var newestPTS: UInt64?
        var lastSubmitted: UInt64?
        var drawn: (GuidanceDrawing, Int, Int)?
        var composition: OverlayComposition?
        var gridKey: ([GridLine], [GuideSegment], Int, Int)?
        var grid: OverlayComposition?
        var context: StageContext?
        /// The score block's box for `drawn`.
        var scoreBlock: (x: Int, y: Int, width: Int, height: Int)?
        /// The advice line drawn for (advice, width, height, text scale), and its overlay at a row y.
        var advice: (key: AdviceKey, sprite: AdviceSprite?)?
        var adviceOverlay: (key: AdviceKey, y: Int, composition: OverlayComposition)?
    }
    struct AdviceKey: Equatable { var advice: String; var width: Int; var height: Int; var textScale: Double }
    typealias AdviceSprite = (image: BGRAImage, x: Int, gap: Int)
    /// Owned by the analysis thread (and `configure`): never taken by `process`, so a slow analysis
    /// cannot hold up a frame.
    struct Analysis {
        var analyzer: CompositionAnalyzer
        /// Packs the reduced copy into the RGB analysis image (same size: no resampling).
        var scaler: VideoScaler?
        var smoother = GuidanceSmoother()
        /// engine=auto's fallbacks in turn (`fallbacks=staggered`); nil: all of them every analysis.
        var rotation: FallbackRotation?
        var minFace = 24
        /// Gives the faces and people found stable ids (`ObjectTracker.identify`), in the analysis image's pixels;
        /// made for each layout in `configure`.
        var tracker: ObjectTracker?
    }
    /// Published results: held only long enough to copy a value in or out.
    struct Results {
        var latest: Guidance?
        var latestInput: (width: Int, height: Int) = (0, 0)
        var analysed = 0
        /// When each recent analysis was published, in stream time (`AnalysisRate`).
        var rate = AnalysisRate()
        var failure: String?
        /// The overlay for `latest`, drawn by the analysis thread.
        struct Prepared {
            var drawing: GuidanceDrawing; var width: Int; var height: Int; var textScale: Double; var composition: OverlayComposition
            var advice: AdviceSprite?
        }
        var prepared: Prepared?
    }
}
