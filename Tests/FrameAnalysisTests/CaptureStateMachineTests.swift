import Testing

@testable import FrameAnalysis

@Suite("CaptureStateMachine")
struct CaptureStateMachineTests {
    typealias M = CaptureStateMachine
    static let s: UInt64 = 1_000_000_000

    static func obs(_ t: Double, stable: Bool = true, subject: Bool = true, composed: Bool = true) -> M.Event {
        .observe(.init(time: UInt64(t * 1e9), stable: stable, subject: subject, composed: composed))
    }

    /// A machine walked to `phase` through real events.
    static func machine(at phase: CapturePhase) -> M {
        var m = M()
        if phase == .idle { return m }
        _ = m.handle(.start)
        if phase == .startingCamera { return m }
        _ = m.handle(.firstFrame)
        let path: [CapturePhase] = [.waitingForStability, .detectingRegion, .templateReady, .readyToCapture]
        var t = 0.0
        for p in path.dropFirst() where path.firstIndex(of: p)! <= (path.firstIndex(of: phase) ?? 3) {
            t += 0.1
            _ = m.handle(obs(t, stable: true, subject: p.rawValue != "detectingRegion", composed: p == .readyToCapture))
        }
        return m
    }

    @Test func startsIdleAndWalksTheForwardPathOneStagePerFrame() {
        var m = M()
        #expect(m.phase == .idle && m.reason == "not started")
        do { let d = m.handle(.start); #expect(d == .none) }; #expect(m.phase == .startingCamera)
        do { let d = m.handle(.firstFrame); #expect(d == .none) }; #expect(m.phase == .waitingForStability)
        // Everything already right: still one stage per analysed frame.
        do { let d = m.handle(Self.obs(0.1)); #expect(d == .none) }; #expect(m.phase == .detectingRegion)
        do { let d = m.handle(Self.obs(0.2)); #expect(d == .none) }; #expect(m.phase == .templateReady)
        do { let d = m.handle(Self.obs(0.3)); #expect(d == .none) }; #expect(m.phase == .readyToCapture)
        #expect(m.reason == "well composed; hold it")
    }

    @Test func idleIgnoresEverythingButStart() {
        var m = M()
        do { let d = m.handle(.firstFrame); #expect(d == .none) }; #expect(m.phase == .idle)
        do { let d = m.handle(Self.obs(1)); #expect(d == .none) }; #expect(m.phase == .idle)
        do { let d = m.handle(.trigger(.manual, time: 0)); #expect(d == .refused("no frame yet")) }
    }

    @Test func startingCameraWaitsForTheFirstFrame() {
        var m = Self.machine(at: .startingCamera)
        do { let d = m.handle(Self.obs(1)); #expect(d == .none) }; #expect(m.phase == .startingCamera)
        do { let d = m.handle(.trigger(.manual, time: 0)); #expect(d == .refused("no frame yet")) }
        _ = m.handle(.firstFrame); #expect(m.phase == .waitingForStability)
    }

    @Test func waitingForStabilityStaysWhileTheCameraMoves() {
        var m = Self.machine(at: .waitingForStability)
        _ = m.handle(Self.obs(0.1, stable: false))
        #expect(m.phase == .waitingForStability && m.reason == "hold the camera still")
        _ = m.handle(Self.obs(0.2, subject: false))
        #expect(m.phase == .detectingRegion && m.reason == "steady; looking for a subject")
    }

    @Test func detectingRegionGoesBackWhenUnstableAndOnWithASubject() {
        var m = Self.machine(at: .detectingRegion)
        #expect(m.phase == .detectingRegion)
        _ = m.handle(Self.obs(1, subject: false)); #expect(m.phase == .detectingRegion)
        _ = m.handle(Self.obs(1.1, stable: false)); #expect(m.phase == .waitingForStability)
        m = Self.machine(at: .detectingRegion)
        _ = m.handle(Self.obs(1, composed: false)); #expect(m.phase == .templateReady)
        #expect(m.reason == "subject found; follow the guide")
    }

    @Test func templateReadyDropsToTheStageThatLostItsCondition() {
        var m = Self.machine(at: .templateReady)
        #expect(m.phase == .templateReady)
        _ = m.handle(Self.obs(1, subject: false)); #expect(m.phase == .detectingRegion)
        m = Self.machine(at: .templateReady)
        _ = m.handle(Self.obs(1, stable: false)); #expect(m.phase == .waitingForStability)
        m = Self.machine(at: .templateReady)
        _ = m.handle(Self.obs(1)); #expect(m.phase == .readyToCapture)
    }

    @Test func readyToCaptureFiresAutoAfterTheDelayOnly() {
        var m = Self.machine(at: .readyToCapture)  // entered at 0.3 s
        #expect(m.phase == .readyToCapture)
        #expect(m.handle(Self.obs(1.2)) == .none)  // 0.9 s held
        do { let d = m.handle(Self.obs(1.3)); #expect(d == .capture(.auto)) }
        #expect(m.phase == .capturingPhoto && m.readiness == .capturing)
        m = Self.machine(at: .readyToCapture)
        _ = m.handle(Self.obs(0.8, composed: false)); #expect(m.phase == .templateReady)
        _ = m.handle(Self.obs(0.9)); #expect(m.phase == .readyToCapture)
        #expect(m.handle(Self.obs(1.3)) == .none)  // the hold restarted at 0.9 s
        do { let d = m.handle(Self.obs(1.9)); #expect(d == .capture(.auto)) }
    }

    @Test func autoOffNeverFires() {
        var m = Self.machine(at: .readyToCapture)
        m.autoCapture = false
        do { let d = m.handle(Self.obs(10)); #expect(d == .none) }; #expect(m.phase == .readyToCapture)
    }

    @Test func capturingPhotoThenSavingThenBackToWaiting() {
        var m = Self.machine(at: .readyToCapture)
        _ = m.handle(Self.obs(1.3))
        do { let d = m.handle(Self.obs(1.4)); #expect(d == .none) }; #expect(m.phase == .capturingPhoto)
        do { let d = m.handle(.trigger(.manual, time: UInt64(1.4e9))); #expect(d == .refused("already capturing")) }
        _ = m.handle(.captured(time: UInt64(1.3e9)))
        #expect(m.phase == .savingPhoto && m.shots == 1 && m.pending == 1 && m.readiness == .saving)
        #expect(m.reason == "saving photo 1 (auto)")
        _ = m.handle(Self.obs(1.5)); #expect(m.phase == .savingPhoto)
        _ = m.handle(.saved)
        #expect(m.phase == .waitingForStability && m.pending == 0 && m.readiness == .ready)
    }

    @Test func cooldownAndMaxShotsHoldAutoBack() {
        var m = Self.machine(at: .readyToCapture)
        m.cooldown = 3 * Self.s; m.maxShots = 2
        _ = m.handle(Self.obs(1.3)); _ = m.handle(.captured(time: UInt64(1.3e9))); _ = m.handle(.saved)
        for t in [1.4, 1.5, 1.6] { _ = m.handle(Self.obs(t)) }
        #expect(m.phase == .readyToCapture)
        do { let d = m.handle(Self.obs(3.0)); #expect(d == .none) }
        #expect(m.reason == "well composed; cooling down")
        do { let d = m.handle(Self.obs(4.3)); #expect(d == .capture(.auto)) }
        _ = m.handle(.captured(time: UInt64(4.3e9))); _ = m.handle(.saved)
        for t in [4.4, 4.5, 4.6] { _ = m.handle(Self.obs(t)) }
        do { let d = m.handle(Self.obs(9)); #expect(d == .none) }
        #expect(m.reason == "well composed; max-shots reached")
        do { let d = m.handle(.trigger(.manual, time: UInt64(9e9))); #expect(d == .refused("max-shots (2) reached")) }
    }

    @Test func manualTriggersCaptureFromAnyRunningStageAndOverlapUpToTheBound() {
        for p in [CapturePhase.waitingForStability, .detectingRegion, .templateReady, .readyToCapture] {
            var m = Self.machine(at: p)
            do { let d = m.handle(.trigger(.manual, time: 0)); #expect(d == .capture(.manual)) }
            #expect(m.phase == .capturingPhoto)
        }
        var m = Self.machine(at: .waitingForStability)
        m.maxPending = 2
        _ = m.handle(.trigger(.event, time: 0)); _ = m.handle(.captured(time: 0))
        #expect(m.handle(.trigger(.interval, time: 1)) == .capture(.interval))  // overlapping while saving
        _ = m.handle(.captured(time: 1))
        #expect(m.readiness == .busy)
        do { let d = m.handle(.trigger(.manual, time: 2)); #expect(d == .refused("busy: 2 photos still saving")) }
        _ = m.handle(.saved); #expect(m.phase == .savingPhoto && m.readiness == .saving)
        _ = m.handle(.saved); #expect(m.phase == .waitingForStability)
    }

    @Test func errorsFromAnywhereThenRecoverAfterTheHold() {
        var m = Self.machine(at: .templateReady)
        _ = m.handle(.captureFailed("snapshot output is gone", time: 5 * Self.s))
        #expect(m.phase == .error && m.reason == "snapshot output is gone")
        _ = m.handle(Self.obs(6)); #expect(m.phase == .error)
        _ = m.handle(Self.obs(7)); #expect(m.phase == .waitingForStability)
        m = Self.machine(at: .readyToCapture)
        _ = m.handle(.trigger(.manual, time: 0)); _ = m.handle(.captured(time: 0))
        _ = m.handle(.saveFailed("disk full", time: Self.s))
        #expect(m.phase == .error && m.pending == 0 && m.reason == "disk full")
        // A trigger in error still captures (the user asked).
        do { let d = m.handle(.trigger(.manual, time: Self.s)); #expect(d == .capture(.manual)) }
    }

    @Test func everyPhaseIsReachable() {
        var seen: Set<CapturePhase> = []
        var m = M(); seen.insert(m.phase)
        _ = m.handle(.start); seen.insert(m.phase)
        _ = m.handle(.firstFrame); seen.insert(m.phase)
        for t in stride(from: 0.1, through: 2.0, by: 0.1) { _ = m.handle(Self.obs(t)); seen.insert(m.phase) }
        _ = m.handle(.captured(time: UInt64(2e9))); seen.insert(m.phase)
        _ = m.handle(.saveFailed("x", time: UInt64(2e9))); seen.insert(m.phase)
        #expect(seen == Set(CapturePhase.allCases))
    }

    /// People read the phase, not its identifier; the bus keeps the identifier.
    @Test func phasesHaveNamesForPeople() {
        #expect(CapturePhase.waitingForStability.displayName == "hold still")
        #expect(CapturePhase.detectingRegion.displayName == "looking for a subject")
        #expect(CapturePhase.startingCamera.displayName == "starting camera")
        #expect(CapturePhase.templateReady.rawValue == "templateReady")
        for p in CapturePhase.allCases { #expect(!p.displayName.isEmpty && p.displayName.allSatisfy { !$0.isUppercase }) }
        #expect(CapturePhase.detectingRegion.label(reason: "steady; looking for a subject") == "looking for a subject")
        #expect(CapturePhase.readyToCapture.label(reason: "well composed; cooling down") == "ready · well composed; cooling down")
        #expect(CapturePhase.savingPhoto.label(reason: "saving photo 3 (auto)") == "saving photo 3 (auto)")
        #expect(CapturePhase.error.label(reason: "disk full") == "error · disk full")
    }
}
