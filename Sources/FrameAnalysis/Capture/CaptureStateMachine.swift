/// The auto-capture assistant's nine stages (names as in the product's reference app).
public enum CapturePhase: String, Sendable, CaseIterable, Codable {
    case idle, startingCamera, waitingForStability, detectingRegion, templateReady, readyToCapture, capturingPhoto, savingPhoto, error

    /// Position in the forward path (idle 0 ... readyToCapture 5, capturingPhoto 6, savingPhoto 7; error -1).
    var rank: Int {
        switch self {
        case .idle: 0
        case .startingCamera: 1
        case .waitingForStability: 2
        case .detectingRegion: 3
        case .templateReady: 4
        case .readyToCapture: 5
        case .capturingPhoto: 6
        case .savingPhoto: 7
        case .error: -1
        }
    }

    /// The phase in words for people (the preview, the terminal); bus messages keep `rawValue`.
    public var displayName: String {
        switch self {
        case .idle: "idle"
        case .startingCamera: "starting camera"
        case .waitingForStability: "hold still"
        case .detectingRegion: "looking for a subject"
        case .templateReady: "follow the guide"
        case .readyToCapture: "ready"
        case .capturingPhoto: "capturing"
        case .savingPhoto: "saving"
        case .error: "error"
        }
    }

    /// The reasons the machine gives when nothing special happened: they only repeat the phase.
    static let plainReasons: Set<String> = [
        "not started", "waiting for the first frame", "hold the camera still", "steady; looking for a subject",
        "subject found; follow the guide", "subject found; checking the composition", "well composed; hold it",
    ]

    /// One line for people: the phase's `displayName`, and the reason when it says more
    /// ("ready · well composed; cooling down", "saving photo 3 (auto)", "error · disk full").
    public func label(reason: String) -> String {
        if reason.isEmpty || Self.plainReasons.contains(reason) { return displayName }
        if reason.hasPrefix(displayName) { return reason }
        return "\(displayName) · \(reason)"
    }
}

/// What made a capture happen.
public enum CaptureTrigger: String, Sendable, Codable, CaseIterable {
    /// Stable + well composed, held for `delay`.
    case auto
    /// SIGUSR1 or the `s` key.
    case manual
    /// A `viewfinder-capture` custom event from the application.
    case event
    /// A frame number from `at=`.
    case at
    /// `interval=` seconds of stream time.
    case interval
    /// The self-timer ran out.
    case timer
}

/// Readiness for another capture, as reported on the bus.
public enum CaptureReadiness: String, Sendable, Codable {
    /// Nothing in flight.
    case ready
    /// A frame is being chosen and handed over.
    case capturing
    /// Saves in flight, room for more.
    case saving
    /// `maxPending` saves in flight: triggers are refused until one completes.
    case busy
}

/// The capture state machine as a value: events in, phase + reason (+ a decision to capture) out.
///
/// Forward moves go one stage per analysed frame (waitingForStability -> detectingRegion ->
/// templateReady -> readyToCapture); losing a condition drops straight back to the stage that needs it.
/// Auto capture fires when readyToCapture has held for `delay`, `cooldown` has passed since the last
/// shot and fewer than `maxShots` were taken. Manual-like triggers (manual, event, at, interval, timer)
/// capture from any running stage. Captures may overlap while saving, up to `maxPending` in flight.
public struct CaptureStateMachine: Sendable, Equatable {
    /// What one analysed frame says.
    public struct Observation: Sendable, Equatable {
        /// Stream running time (ns).
        public var time: UInt64
        /// The camera is steady (stability verdict).
        public var stable: Bool
        /// A subject was found.
        public var subject: Bool
        /// The subject is placed by the rule (compose's well-composed flag).
        public var composed: Bool
        /// Creates an observation.
        public init(time: UInt64, stable: Bool, subject: Bool, composed: Bool) {
            self.time = time; self.stable = stable; self.subject = subject; self.composed = composed
        }
    }

    /// Inputs.
    public enum Event: Sendable, Equatable {
        /// The pipeline starts.
        case start
        /// The first frame (and its layout) arrived.
        case firstFrame
        /// An analysed frame.
        case observe(Observation)
        /// A trigger other than auto, at a stream time.
        case trigger(CaptureTrigger, time: UInt64)
        /// The chosen frame was handed to the snapshot branch.
        case captured(time: UInt64)
        /// No frame could be handed over (output gone, ring empty).
        case captureFailed(String, time: UInt64)
        /// One capture's files are complete.
        case saved
        /// One capture's files could not be written.
        case saveFailed(String, time: UInt64)
    }

    /// What the stage must do after an event.
    public enum Decision: Sendable, Equatable {
        /// Nothing.
        case none
        /// Choose a frame and hand it over now.
        case capture(CaptureTrigger)
        /// A trigger was refused (reason).
        case refused(String)
    }

    /// Current stage.
    public private(set) var phase: CapturePhase = .idle
    /// Why it is there, in a few words (drawn on the preview, posted on the bus).
    public private(set) var reason = "not started"
    /// Captures handed over whose files are not complete yet.
    public private(set) var pending = 0
    /// Captures taken.
    public private(set) var shots = 0
    /// Auto capture on or off.
    public var autoCapture = true
    /// How long readyToCapture must hold before an auto capture (ns).
    public var delay: UInt64 = 1_000_000_000
    /// Least time between two auto captures (ns).
    public var cooldown: UInt64 = 3_000_000_000
    /// Most captures (0: no limit).
    public var maxShots = 0
    /// Most captures in flight.
    public var maxPending = 4
    /// How long the error stage is shown before trying again (ns).
    public var errorHold: UInt64 = 2_000_000_000
    private var readySince: UInt64?
    private var lastShot: UInt64?
    private var errorUntil: UInt64 = 0
    private var pendingTrigger: CaptureTrigger?

    /// Creates a machine in `idle`.
    public init() {}

    /// Readiness for another capture.
    public var readiness: CaptureReadiness {
        if phase == .capturingPhoto { return .capturing }
        if pending >= maxPending { return .busy }
        return pending > 0 ? .saving : .ready
    }

    /// Feeds one event.
    public mutating func handle(_ event: Event) -> Decision {
        switch event {
        case .start:
            guard phase == .idle else { return .none }
            move(.startingCamera, "waiting for the first frame")
        case .firstFrame:
            guard phase == .startingCamera else { return .none }
            move(.waitingForStability, "hold the camera still")
        case .observe(let o):
            return observe(o)
        case .trigger(let kind, let time):
            return trigger(kind, time: time)
        case .captured(let time):
            guard phase == .capturingPhoto else { return .none }
            shots += 1; pending += 1; lastShot = time; readySince = nil
            move(.savingPhoto, "saving photo \(shots) (\(pendingTrigger?.rawValue ?? "manual"))")
            pendingTrigger = nil
        case .captureFailed(let why, let time):
            pendingTrigger = nil
            fail(why, time: time)
        case .saved:
            pending = max(0, pending - 1)
            if phase == .savingPhoto && pending == 0 { move(.waitingForStability, "saved; hold the camera still") }
        case .saveFailed(let why, let time):
            pending = max(0, pending - 1)
            fail(why, time: time)
        }
        return .none
    }

    private mutating func fail(_ why: String, time: UInt64) {
        readySince = nil
        errorUntil = time &+ errorHold
        move(.error, why)
    }

    private mutating func move(_ p: CapturePhase, _ why: String) { phase = p; reason = why }

    private mutating func observe(_ o: Observation) -> Decision {
        switch phase {
        case .idle, .startingCamera, .capturingPhoto, .savingPhoto:
            return .none
        case .error:
            guard o.time >= errorUntil else { return .none }
            move(.waitingForStability, "recovered; hold the camera still")
            return .none
        default: break
        }
        // Where the conditions allow us to be; forward one stage at a time, backward at once.
        let allowed: CapturePhase
        let why: String
        if !o.stable {
            allowed = .waitingForStability; why = "hold the camera still"
        } else if !o.subject {
            allowed = .detectingRegion; why = "steady; looking for a subject"
        } else if !o.composed {
            allowed = .templateReady; why = "subject found; follow the guide"
        } else {
            allowed = .readyToCapture; why = "well composed; hold it"
        }
        let next: CapturePhase
        if allowed.rank <= phase.rank {
            next = allowed
        } else {
            next = [CapturePhase.waitingForStability, .detectingRegion, .templateReady, .readyToCapture].first {
                $0.rank == phase.rank + 1
            }!
        }
        if next != .readyToCapture { readySince = nil } else if phase != .readyToCapture { readySince = o.time }
        let reasonText: String
        switch next {
        case allowed: reasonText = why
        case .detectingRegion: reasonText = "steady; looking for a subject"
        case .templateReady: reasonText = "subject found; checking the composition"
        default: reasonText = why
        }
        move(next, reasonText)
        guard next == .readyToCapture, autoCapture, let since = readySince else { return .none }
        if o.time < since &+ delay { return .none }
        if let last = lastShot, o.time < last &+ cooldown { reason = "well composed; cooling down"; return .none }
        if maxShots > 0 && shots >= maxShots { reason = "well composed; max-shots reached"; return .none }
        if pending >= maxPending { reason = "well composed; busy saving"; return .none }
        pendingTrigger = .auto
        move(.capturingPhoto, "capturing (auto)")
        return .capture(.auto)
    }

    private mutating func trigger(_ kind: CaptureTrigger, time: UInt64) -> Decision {
        switch phase {
        case .idle, .startingCamera: return .refused("no frame yet")
        case .capturingPhoto: return .refused("already capturing")
        default: break
        }
        if maxShots > 0 && shots >= maxShots { return .refused("max-shots (\(maxShots)) reached") }
        if pending >= maxPending { return .refused("busy: \(pending) photos still saving") }
        pendingTrigger = kind
        move(.capturingPhoto, "capturing (\(kind.rawValue))")
        return .capture(kind)
    }
}
