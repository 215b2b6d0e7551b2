import Foundation
import GStreamerKit
import Stages
import Timing

/// A requested extra output (`c.snapshot ! jpegenc ! ...`) with a streaming thread of its own, as the host's
/// extra outputs have (an appsrc each): the element's streaming thread only queues, so a photo branch whose
/// sink waits to preroll (on the GAP events that stand for frames without a photo) or writes slowly never
/// holds the main stream, and no `queue` is needed after the pad.
///
/// Bounded: at most 8 items; frames, tags and events wait for room (20 ms steps, as the host's appsrcs
/// block), GAP events are dropped when it is full. Threads and locks: one `NSCondition` around the items
/// and the stop flag, taken by the element's streaming thread (enqueue), a stage's own threads (tags,
/// events) and the pad's thread `vf-<stage>-<output>`; nothing else is taken while it is held.
final class OutputPad: @unchecked Sendable {
    /// What travels to the pad, in order.
    enum Item {
        case frame(Buffer, Caps, Segment)
        case tags(TagList, Caps?, Segment?)
        case event(MessageStructure, Caps?, Segment?)
        case gap(pts: ClockTime, duration: ClockTime, Caps, Segment)
        case end
    }

    /// Items held at most.
    static let capacity = 8

    let output: String
    private let element: PluginElement
    /// Told (on the pad's thread) when downstream refused a frame: the flow return's name.
    private let refused: @Sendable (String) -> Void
    private let cond = NSCondition()
    private var items: [Item] = []
    private var stopped = false

    init(output: String, element: PluginElement, refused: @escaping @Sendable (String) -> Void) {
        self.output = output; self.element = element; self.refused = refused
    }

    /// Starts the pad's thread.
    func start(stage: String) {
        let t = Thread { [self] in run() }
        t.name = "vf-\(stage)-\(output)"
        t.start()
    }

    /// Queues an item; false once stopped (or, for a GAP, when full).
    @discardableResult
    func enqueue(_ item: Item) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        if case .gap = item, items.count >= Self.capacity { return false }
        while items.count >= Self.capacity && !stopped { SystemClock.shared.wait(on: cond, seconds: 0.02) }
        guard !stopped else { return false }
        items.append(item)
        cond.broadcast()
        return true
    }

    /// Items queued and not yet pushed.
    var backlog: Int {
        cond.lock()
        defer { cond.unlock() }
        return items.count
    }

    /// Stops the thread (after the element's pads were deactivated, so a push in progress returns).
    func stop() {
        cond.lock()
        stopped = true
        items.removeAll()
        cond.broadcast()
        cond.unlock()
    }

    private func run() {
        while true {
            cond.lock()
            while items.isEmpty && !stopped { cond.wait() }
            if stopped {
                cond.unlock()
                return
            }
            let item = items.removeFirst()
            cond.broadcast()
            cond.unlock()
            switch item {
            case .frame(let buffer, let caps, let segment):
                if case .refused(let why) = element.push(buffer, caps: caps, segment: segment, onPad: output) { refused(why) }
            case .tags(let tags, let caps, let segment):
                element.push(tags, caps: caps, segment: segment, onPad: output)
            case .event(let event, let caps, let segment):
                element.push(event: event, caps: caps, segment: segment, onPad: output)
            case .gap(let pts, let duration, let caps, let segment):
                element.pushGap(pts: pts, duration: duration, caps: caps, segment: segment, onPad: output)
            case .end:
                element.endStream(onPad: output)
            }
        }
    }
}
