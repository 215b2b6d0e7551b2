/// One encoded frame (access unit) as the clip ring keeps it: its times, whether it is a keyframe, its size and
/// what the writer needs (`payload`: a shared `Buffer` in the service, a number in the tests).
public struct ClipUnit<Payload: Sendable>: Sendable {
    /// Presentation time (ns); nil when the encoder gave none.
    public var pts: UInt64?
    /// Decoding time (ns); nil when the encoder gave none (then pts orders the stream).
    public var dts: UInt64?
    /// True for a frame that decodes alone (not DELTA_UNIT).
    public var key: Bool
    /// Bytes of the frame.
    public var bytes: Int
    /// Which caps the frame came with (a count: a new one starts with the first frame of new caps).
    public var capsGeneration: Int
    /// What the writer pushes.
    public var payload: Payload

    public init(pts: UInt64?, dts: UInt64?, key: Bool, bytes: Int, capsGeneration: Int = 0, payload: Payload) {
        self.pts = pts; self.dts = dts; self.key = key; self.bytes = bytes; self.capsGeneration = capsGeneration
        self.payload = payload
    }

    /// The time that orders the stream and cuts it: decoding time, else presentation time (0 when neither).
    public var time: UInt64 { dts ?? pts ?? 0 }
    /// The time a viewer sees (presentation time, else decoding time).
    public var shown: UInt64 { pts ?? dts ?? 0 }
}

/// The last seconds of an encoded stream, cut at keyframes: it always starts with a keyframe (frames before the
/// first keyframe are never kept) and holds just enough groups of pictures that a clip asked for now can start
/// `keep` seconds back (the newest keyframe at or before `newest - keep` is its first frame). Bounded twice: by
/// time (`keep`) and by bytes (`maxBytes`: the oldest group goes first, and `shortened` counts it). Not
/// thread-safe: its owner (`ClipCutter`) is used under one lock.
public struct ClipRing<Payload: Sendable>: Sendable {
    /// Seconds a clip may reach back from the newest frame.
    public let keep: Double
    /// Bytes held at most (the newest group is kept whatever its size).
    public let maxBytes: Int
    /// The frames, oldest first; the first is a keyframe (or the ring is empty).
    public private(set) var units: [ClipUnit<Payload>] = []
    /// Bytes held now.
    public private(set) var bytes = 0
    /// Groups dropped for `maxBytes` before they were `keep` seconds old.
    public private(set) var shortened = 0
    /// Frames dropped because no keyframe had come yet (the start of a stream).
    public private(set) var beforeFirstKey = 0

    public init(keep: Double, maxBytes: Int) {
        self.keep = keep
        self.maxBytes = maxBytes
    }

    /// The newest frame's time (ns).
    public var newest: UInt64? { units.last?.time }
    /// Seconds from the first frame to the newest.
    public var seconds: Double {
        guard let first = units.first, let last = units.last, last.time > first.time else { return 0 }
        return Double(last.time - first.time) / 1e9
    }

    /// Adds the next frame (decoding order) and drops what is no longer needed. Frames of new caps start over: the
    /// older frames cannot go into one file with them.
    public mutating func append(_ unit: ClipUnit<Payload>) {
        if let last = units.last, last.capsGeneration != unit.capsGeneration { removeAll() }
        guard !units.isEmpty || unit.key else {
            beforeFirstKey += 1
            return
        }
        units.append(unit)
        bytes += unit.bytes
        trim()
    }

    /// Empties the ring (new caps, a stream that started again).
    public mutating func removeAll() {
        units.removeAll(keepingCapacity: true)
        bytes = 0
    }

    /// The index of the frame a clip reaching back to `time` starts at: the newest keyframe at or before it, else the
    /// oldest keyframe (the ring is shorter than asked); nil when the ring is empty.
    public func start(reachingBackTo time: UInt64) -> Int? {
        guard !units.isEmpty else { return nil }
        var found = 0
        for (i, u) in units.enumerated() where u.key {
            if u.time <= time { found = i } else { break }
        }
        return found
    }

    /// The frames from `index` to the newest.
    public func units(from index: Int) -> ArraySlice<ClipUnit<Payload>> { units[index...] }

    private mutating func trim() {
        guard let newest = units.last?.time else { return }
        let horizon = newest > UInt64(keep * 1e9) ? newest - UInt64(keep * 1e9) : 0
        // By time: drop whole groups while the next keyframe is still at or before the horizon.
        var cut = 0
        for (i, u) in units.enumerated() where u.key && i > 0 {
            if u.time <= horizon { cut = i } else { break }
        }
        // By bytes: drop the oldest groups while over the cap, keeping at least the newest group.
        var dropped = units[..<cut].reduce(0) { $0 + $1.bytes }
        if bytes - dropped > maxBytes {
            for i in (cut + 1)..<units.count where units[i].key {
                dropped += units[cut..<i].reduce(0) { $0 + $1.bytes }
                cut = i
                shortened += 1
                if bytes - dropped <= maxBytes { break }
            }
        }
        guard cut > 0 else { return }
        bytes -= dropped
        units.removeFirst(cut)
    }
}
