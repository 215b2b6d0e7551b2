import Foundation
import GStreamerKit
import Host
import Timing

/// `bench clips`: a live 1280x720 30 fps stream encoded once (x264enc, a keyframe every second) and teed into a full
/// recording and a `clips` recorder (pre 3 s, post 2 s), with clips asked for at 5, 9, 10, 15 and 20.2 s: 9 and 10 overlap (one
/// clip), and 20.2's pre-roll starts just after 15's clip ends (back to back). Against
/// the peer: the same session without the `clips` branch.
///
/// Measured: each clip against the recording, packet by packet (ffprobe's MD5 of each encoded frame): it must be a
/// run of the recording's frames (byte-identical, nothing lost inside), start at most one key interval before the
/// requested pre-roll and end within one key interval after post; back to back clips must leave no frame out between
/// them. The ring's cost is the CPU time of its reader thread (`vf-clips`: pull, ring, writer pushes) over the run, as
/// a share of one core; its memory is the ring's bytes at the end against pre x the stream's bitrate.
extension Bench {
    public struct ClipCheck: Sendable {
        public var id: Int
        public var moment: Double
        public var startOffset: Double
        public var endOffset: Double
        public var frames: Int
        public var identical: Bool
        public var firstFrame: Int
        public var triggers: Int
    }

    public struct ClipsResult: Sendable {
        public var seconds: Double
        public var clips: [ClipCheck]
        /// Frames between back-to-back clips that are in neither (must be 0).
        public var lostBetween: Int
        public var ringThreadCPU: Double
        public var processCPU: Double
        public var peerProcessCPU: Double
        public var ringBytes: Int
        public var ringSeconds: Double
        public var bitrate: Double
        public var pre: Double
        public var post: Double
        public var keyInterval: Double
    }

    static let clipsSource =
        "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! video/x-raw,width=1280,height=720,framerate=30/1 "
        + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bitrate=4000 ! h264parse ! tee name=t "

    /// Runs the peer, then ours, `seconds` each (at least 24: the last moment is at 20.2 s).
    public static func clips(seconds: Double) throws(HostError) -> ClipsResult {
        let seconds = max(seconds, 24)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vf-bench-clips-\(UUID().uuidString)").path
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw HostError(.runtime, "bench clips: cannot create \(dir): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pre = 3.0, post = 2.0
        // The peer: the encode and the recording only.
        let peer = BackgroundRun(try Session(description: clipsSource + "t. ! queue ! mp4mux ! filesink location=\(dir)/peer.mp4"), name: "vf-bench-peer")
        try peer.waitPlaying("the peer")
        let peerStart = processCPUMs(), peerWall = SystemClock.shared.now
        SystemClock.shared.sleep(seconds: seconds)
        let peerCPU = (processCPUMs() - peerStart) / 1000 / (SystemClock.shared.now - peerWall)
        peer.stop()
        // Ours.
        let session = try Session(
            description: clipsSource + "t. ! queue ! mp4mux ! filesink location=\(dir)/full.mp4 t. ! queue ! clips directory=\(dir)/clips pre=3 post=2")
        let run = BackgroundRun(session, name: "vf-bench-clips")
        try run.waitPlaying("the clips session")
        guard let recorder = session.clipRecorders.first else { throw HostError(.runtime, "bench clips: no clip recorder in the session") }
        let started = SystemClock.shared.now
        let cpuStart = processCPUMs()
        for at in [5.0, 9.0, 10.0, 15.0, 20.2] {
            SystemClock.shared.sleep(until: started + at)
            recorder.trigger(kind: "bench")
        }
        SystemClock.shared.sleep(until: started + seconds)
        let cpu = (processCPUMs() - cpuStart) / 1000 / (SystemClock.shared.now - started)
        let ringCPU = ProcessCPU.threadSeconds(named: "vf-clips") / (SystemClock.shared.now - started)
        let figures = session.clipRecorders.first?.stateFields()["clips"] as? [String: [String: Any]]
        let ringBytes = figures?.values.first?["ringBytes"] as? Int ?? 0
        let ringSeconds = figures?.values.first?["ringSeconds"] as? Double ?? 0
        run.stop()
        return try check(dir: dir, pre: pre, post: post, seconds: seconds, ringCPU: ringCPU, cpu: cpu, peerCPU: peerCPU, ringBytes: ringBytes, ringSeconds: ringSeconds)
    }

    private static func check(
        dir: String, pre: Double, post: Double, seconds: Double, ringCPU: Double, cpu: Double, peerCPU: Double, ringBytes: Int,
        ringSeconds: Double
    ) throws(HostError) -> ClipsResult {
        let full = try packets("\(dir)/full.mp4")
        guard let data = FileManager.default.contents(atPath: "\(dir)/clips/clips.json"),
            let doc = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let records = doc["clips"] as? [[String: Any]]
        else { throw HostError(.runtime, "bench clips: no clips.json written") }
        let fullSeconds = Double(full.count) / 30
        let bitrate = Double(full.reduce(0) { $0 + $1.size }) * 8 / max(fullSeconds, 1)
        var checks: [ClipCheck] = []
        var runs: [(first: Int, count: Int)] = []
        for r in records {
            guard let id = r["id"] as? Int, let file = r["file"] as? String, let start = r["startPts"] as? UInt64, let end = r["endPts"] as? UInt64,
                let triggers = r["triggers"] as? [[String: Any]], let firstMoment = (triggers.first?["pts"] as? UInt64), let lastMoment = triggers.last?["pts"] as? UInt64
            else { continue }
            let clip = try packets("\(dir)/clips/\(file)")
            let at = full.firstIndex { $0.hash == clip.first?.hash } ?? -1
            let identical = at >= 0 && at + clip.count <= full.count && zip(full[at...], clip).allSatisfy { $0.hash == $1.hash }
            runs.append((at, clip.count))
            checks.append(
                ClipCheck(
                    id: id, moment: Double(firstMoment) / 1e9, startOffset: Double(start) / 1e9 - (Double(firstMoment) / 1e9 - pre),
                    endOffset: Double(end) / 1e9 - (Double(lastMoment) / 1e9 + post), frames: clip.count, identical: identical, firstFrame: at,
                    triggers: triggers.count))
        }
        // Back to back: the last clip's pre-roll begins after the one before ends; count frames between the two that
        // neither holds and that the requested windows covered.
        var lost = 0
        if runs.count >= 2, let a = runs.dropLast().last, let b = runs.last, a.first >= 0, b.first >= 0, b.first > a.first + a.count {
            let gap = b.first - (a.first + a.count)
            let wanted = Int(((checks.last?.moment ?? 0) - pre - ((checks.dropLast().last?.moment ?? 0) + post)) * 30)
            lost = max(0, gap - max(0, wanted))
        }
        return ClipsResult(
            seconds: seconds, clips: checks, lostBetween: lost, ringThreadCPU: ringCPU, processCPU: cpu, peerProcessCPU: peerCPU,
            ringBytes: ringBytes, ringSeconds: ringSeconds, bitrate: bitrate, pre: pre, post: post, keyInterval: 1)
    }

    /// Each packet of `file`: ffprobe's MD5 of its data and its size.
    static func packets(_ file: String) throws(HostError) -> [(hash: String, size: Int)] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-show_data_hash", "md5", "-show_entries", "packet=data_hash,size", "-of", "csv=p=0", file]
        let out = Pipe()
        p.standardOutput = out
        do { try p.run() } catch { throw HostError(.runtime, "bench clips: cannot run ffprobe: \(error.localizedDescription)") }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 2, let size = Int(f[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            return (String(f[1]).trimmingCharacters(in: .whitespaces), size)
        }
    }
}

/// CPU time of this process's named threads, from /proc (the whole process's is `Bench.processCPUMs`).
enum ProcessCPU {
    static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// utime + stime (s) of a /proc stat line.
    static func stat(_ path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        let f = text[text.index(after: close)...].split(separator: " ")
        guard f.count > 13, let u = Double(f[11]), let s = Double(f[12]) else { return nil }
        return (u + s) / ticks
    }

    /// CPU seconds of this process's live threads whose name is `name`.
    static func threadSeconds(named name: String) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.reduce(0) { sum, tid in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            guard comm == name, let s = stat("/proc/self/task/\(tid)/stat") else { return sum }
            return sum + s
        }
    }
}
