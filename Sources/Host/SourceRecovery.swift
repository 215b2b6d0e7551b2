import Foundation
import Stages
import Timing

/// The recovery state machine of one watched source (what `SourceKeeper` keeps behind its `state` mutex):
/// the phase, the attempt schedule (a `Backoff`: `firstDelay`, doubling to `maxDelay`), the placeholder slots
/// handed out, and the messages and stderr lines it produced.
///
/// Pure: no GStreamer, no thread, no clock of its own. Every call gets `now` (seconds of the keeper's
/// `HostClock`) and what the keeper read from the group (arrivals, frames passed, lateness), so the whole
/// schedule is tested with plain numbers (`SourceRecoveryTests`).
struct SourceRecovery {
    /// The raw value names the state in the metrics (`viewfinder_source_state{state="live"}`).
    enum Phase: String, Equatable, CaseIterable { case waiting, live, lost, ended }

    /// The source element named in messages (a source switch names the new one).
    var element: String
    let policy: SourceKeeper.Policy

    private(set) var phase: Phase = .waiting
    /// Arrivals counted at the last look.
    private(set) var lastCount = 0
    /// When a frame last arrived (live), or when watching started (waiting).
    private(set) var lastFrameAt: Double
    private(set) var lostAt: Double = 0
    /// Where the outage the messages report starts: the last live frame seen before the loss.
    private(set) var outageStart: Double = 0
    private(set) var reason = ""
    /// Attempts since the loss.
    private(set) var attempt = 0
    /// The delays between attempts.
    private(set) var backoff: Backoff
    private(set) var nextAttemptAt = Double.infinity
    /// An attempt's state changes are under way (on the keeper's restart thread).
    var restarting = false
    private(set) var losses = 0
    private(set) var restores = 0
    /// Attempts made over the whole run (`attempt` starts again at each loss).
    private(set) var attempts = 0
    private(set) var placeholders = 0
    /// Running time of the last placeholder handed out (ns).
    private(set) var lastPlaceholder: UInt64 = 0
    /// How far behind the clock live frames arrive (running time now - the frame's; negative when they
    /// carry times ahead of the clock, as demuxed streams do), from the newest arrival.
    private(set) var lateness: Int64 = 0
    /// When the last frame arrived (any phase).
    private(set) var lastArrivalAt = -Double.infinity
    /// Live frames the worker had passed when the source was lost.
    private(set) var passedAtLoss = 0
    /// Messages for the bus loop (at most 64, oldest dropped).
    private(set) var messages: [SourceMessage] = []
    /// Lines for stderr, written by the keeper outside its lock.
    private(set) var lines: [String] = []
    /// Set once the attempts are used up: the text the run ends with.
    private(set) var gaveUp: String?

    init(element: String, policy: SourceKeeper.Policy, now: Double) {
        self.element = element
        self.policy = policy
        lastFrameAt = now
        backoff = Backoff(first: policy.firstDelay, maximum: policy.maxDelay)
    }

    /// Watching starts (the pipelines play): the first frame is awaited from `now`.
    mutating func start(at now: Double) { lastFrameAt = now }

    /// What one look found: whether live frames arrived since the last look (`arrivals` counted so far),
    /// `passed` live frames the worker passed on, `lateness` of the newest arrival when one arrived, and the
    /// frames that count as "restored". Moves waiting → live, live → lost (stall, no first frame), lost → live
    /// (restored). True when the source was lost before this look and still is (placeholders and attempts
    /// are looked at then, from the next look on after a loss).
    mutating func observe(now: Double, arrivals: Int, passed: Int, lateness: Int64?, restoreFrames: Int) -> Bool {
        if let lateness {
            self.lateness = lateness
            lastArrivalAt = now
        }
        switch phase {
        case .waiting:
            if arrivals > 0 {
                phase = .live; lastCount = arrivals; lastFrameAt = now
            } else if now - lastFrameAt >= policy.firstFrame {
                lose(reason: String(format: "no frame in the first %.0f s", policy.firstFrame), at: now, passed: passed)
            }
        case .live:
            if arrivals != lastCount {
                lastCount = arrivals; lastFrameAt = now
            } else if now - lastFrameAt >= policy.stall {
                lose(reason: String(format: "no frame for %.1f s", now - lastFrameAt), at: now, passed: passed)
            }
        case .lost:
            // Back once live frames have flowed past the worker for half a second (placeholders fill any
            // hole until then, so the switch leaves none).
            if passed - passedAtLoss >= restoreFrames {
                restore(at: now, arrivals: arrivals)
                return false
            }
            return true
        case .ended: break
        }
        return false
    }

    /// The segment failed or ended (bus loop): lost, unless already. While lost, an error is the current
    /// attempt failing: a note for stderr (the schedule stands), nil otherwise.
    mutating func failed(_ reason: String, at now: Double, passed: Int) -> String? {
        switch phase {
        case .live, .waiting:
            lose(reason: reason, at: now, passed: passed)
            return nil
        case .lost: return attempt > 0 ? "viewfinder: source '\(element)': attempt \(attempt) failed: \(reason)\n" : nil
        case .ended: return nil
        }
    }

    /// While lost: whether an attempt is due now (none while frames are arriving again, none while one is
    /// under way). Counts it, schedules the next after the back-off's delay, posts `retrying`; gives up (and
    /// returns false) when `attempts` are used up.
    mutating func attemptIfDue(at now: Double) -> Bool {
        guard phase == .lost else { return false }
        // Frames coming again (a source that reconnects by itself, or the last attempt): no new attempt while
        // they do.
        if now - lastArrivalAt < 0.5 { nextAttemptAt = max(nextAttemptAt, now + 0.5) }
        guard !restarting, now >= nextAttemptAt else { return false }
        if policy.attempts > 0 && attempt >= policy.attempts {
            giveUp(at: now)
            return false
        }
        attempt += 1
        attempts += 1
        restarting = true
        let delay = backoff.next()
        nextAttemptAt = now + delay
        post(.retrying, retryIn: delay, now: now)
        return true
    }

    /// Supervision ends (`release`): true when the source was down (lost) or never delivered a frame.
    mutating func end() -> Bool {
        defer { phase = .ended }
        return phase == .lost || phase == .waiting
    }

    /// The messages queued so far, emptied.
    mutating func drainMessages() -> [SourceMessage] {
        defer { messages.removeAll() }
        return messages
    }

    /// The stderr lines queued so far, emptied.
    mutating func drainLines() -> [String] {
        defer { lines.removeAll() }
        return lines
    }

    // MARK: - Placeholders

    /// The placeholder slots due now while lost: every frame slot (`duration` ns) from the last frame passed on
    /// (`after`, or the last placeholder) up to the running time a live frame arriving now would carry
    /// (`clockRunningTime` minus the live frames' lateness), half a frame of slack; at most `maxBackfill` s back.
    mutating func duePlaceholders(clockRunningTime: Int64, after: UInt64, duration: UInt64, now: Double) -> [(UInt64, String)] {
        guard phase == .lost else { return [] }
        let target = clockRunningTime - lateness - Int64(duration / 2)
        guard target > 0 else { return [] }
        return slots(after: after, upTo: UInt64(target), duration: duration, now: now)
    }

    /// For the worker's hole (`SourceKeeper.fill`): while lost, the slots between the last frame passed on
    /// (`after`) and a live frame at `before`, leaving less than one frame duration; none otherwise.
    mutating func holeSlots(after: UInt64, before: UInt64, duration: UInt64, now: Double) -> [(UInt64, String)] {
        guard phase == .lost, before > after + duration + duration / 2 else { return [] }
        return slots(after: after, upTo: before - duration / 2 - duration / 2, duration: duration, now: now)
    }

    /// Frame slots after max(`after`, the last placeholder) up to `upTo` (at most `maxBackfill` s of them),
    /// with the slate's text; counted as sent.
    private mutating func slots(after: UInt64, upTo target: UInt64, duration: UInt64, now: Double) -> [(UInt64, String)] {
        let backfill = UInt64(policy.maxBackfill * 1e9)
        var next = max(lastPlaceholder, after) + duration
        if target > backfill { next = max(next, target - backfill) }
        var due: [(UInt64, String)] = []
        let wait = max(0, nextAttemptAt - now)
        let text = restarting ? "signal lost: reconnecting (attempt \(attempt))" : "signal lost, retrying in \(Int(wait.rounded(.up))) s"
        while next <= target, due.count < 1000 {
            due.append((next, text))
            lastPlaceholder = next
            placeholders += 1
            next += duration
        }
        return due
    }

    // MARK: - Transitions

    /// Marks the loss (`lostAt`: when it was noticed; the schedule starts there): counts, message, the first attempt
    /// after the back-off's first delay. The outage counts from `outageStart`: the last look that saw a live frame (a
    /// stall is noticed `policy.stall` s after it), or the loss when no frame came yet.
    private mutating func lose(reason: String, at now: Double, passed: Int) {
        outageStart = phase == .live ? min(lastFrameAt, now) : now
        lostAt = now
        phase = .lost
        self.reason = reason
        losses += 1
        attempt = 0
        backoff.reset()
        nextAttemptAt = now + backoff.current
        passedAtLoss = passed
        post(.lost, retryIn: backoff.current, now: now)
    }

    private mutating func restore(at now: Double, arrivals: Int) {
        phase = .live
        restores += 1
        lastCount = arrivals
        lastFrameAt = now
        post(.restored, retryIn: 0, now: now)
        attempt = 0
        backoff.reset()
        nextAttemptAt = .infinity
    }

    private mutating func giveUp(at now: Double) {
        phase = .ended
        post(.gaveUp, retryIn: 0, now: now)
        gaveUp =
            "source '\(element)' lost (\(reason)) and not back after \(attempt) attempt\(attempt == 1 ? "" : "s") (--reconnect-attempts \(policy.attempts))"
    }

    /// Queues the message and its stderr line.
    private mutating func post(_ kind: SourceMessage.State, retryIn: Double, now: Double) {
        let outage = kind == .restored || kind == .gaveUp ? now - outageStart : 0
        let m = SourceMessage(
            state: kind, element: element, reason: kind == .lost || kind == .gaveUp ? reason : "", attempt: attempt,
            retryIn: retryIn, losses: losses, restores: restores, outage: outage, placeholders: placeholders)
        if messages.count >= 64 { messages.removeFirst() }
        messages.append(m)
        let line: String
        switch kind {
        case .lost: line = "source '\(element)' lost (\(reason)); placeholder frames go on; retrying in \(Self.seconds(retryIn))"
        case .retrying: line = "source '\(element)': attempt \(attempt) (next in \(Self.seconds(retryIn)) if this one fails)"
        case .restored:
            line = String(format: "source '\(element)' restored after %.1f s (attempt %d, %d placeholder frames so far)", outage, attempt, placeholders)
        case .gaveUp: line = "source '\(element)' gave up after \(attempt) attempts"
        case .switched: line = "source '\(element)' switched"  // posted by the source switch, not by recovery
        }
        if lines.count >= 64 { lines.removeFirst() }
        lines.append("viewfinder: \(line)\n")
    }

    static func seconds(_ d: Double) -> String { d == d.rounded() ? "\(Int(d)) s" : String(format: "%.1f s", d) }
}
