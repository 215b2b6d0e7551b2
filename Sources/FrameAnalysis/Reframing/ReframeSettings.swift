/// How `reframe` frames: the output's shape, the rule, and the operator's manners (dead zone, speeds, cuts).
/// Distances are fractions of the window (dead zone, cut) or of the input's height per second (pan).
public struct ReframeSettings: Sendable, Equatable {
    /// Where the subject goes in the output.
    public enum Rule: String, Sendable, CaseIterable {
        /// The subject's box centre on a thirds intersection (upper one), on the side away from where it looks.
        case thirds
        /// The subject's box centre in the middle.
        case center
        /// Eyes on the upper third line, look room on the side the face looks towards.
        case portrait
        /// The subject's box centre on the upper thirds line away from where its leading line comes from, so the line
        /// crosses the output into it (`thirds` without a leading line).
        case lines
        /// `portrait` for one face, `center` for a group.
        case auto
    }

    /// Output width / height (9:16 = 0.5625).
    public var aspect: Double
    /// The rule.
    public var rule: Rule
    /// A single face's height as a fraction of the output's height (the zoom for one person).
    public var subjectSize: Double = 0.2
    /// The smallest window is the widest one divided by this.
    public var maxZoom: Double = 3
    /// The goal moves only when the wanted window's centre is off by more than this fraction of the window (x and y).
    public var deadZone: Double = 0.08
    /// ... or its width by more than this fraction.
    public var zoomDeadZone: Double = 0.15
    /// The motion's natural frequency (rad/s, critically damped): ~2.4 s to settle at 2.5.
    public var stiffness: Double = 2.5
    /// Fastest pan, input heights per second.
    public var maxPan: Double = 0.5
    /// Fastest zoom, window widths per second.
    public var maxZoomSpeed: Double = 0.4
    /// A wanted window farther than this many window widths from the current one is cut to, not panned to.
    public var cutDistance: Double = 0.75
    /// The least time between two cuts after a salient subject (an object, no person: `FramingScene.salient`) that
    /// moves on (within 1.5 of its size of where the last analysis had it): a ball crossing the frame is panned after,
    /// not cut after three times a second. Faces and bodies, another subject, scene changes and the first subject are
    /// cut to whenever they need it (a face must never wait outside or cut by an edge).
    public var cutInterval: Double = 2
    /// Seconds the last framing is held after the subject is lost, before easing to the default window.
    public var hold: Double = 2
    /// Space kept round each face that must stay in (fraction of the face's width; the top gets `headroom`).
    public var faceMargin: Double = 0.35
    /// Space above the top face of a group, fraction of its height.
    public var headroom: Double = 0.5
    /// The most of the output (a fraction of its height, and of its width) that may be bars past the frame, used only
    /// for faces no crop of the frame holds: a group wider than a 9:16 crop of a 16:9 frame, a face too close for one.
    /// 0.2 lets a window hold, with the minimum margin (`FramingTarget.minimumMargin`), any face the frame's height
    /// holds. 0: never bars (such faces are cut down to the most that fit).
    public var pad: Double = 0.2

    /// Settings for an output of `aspect` framed by `rule`.
    public init(aspect: Double, rule: Rule) { self.aspect = aspect; self.rule = rule }
}
