import Foundation
import TestTags
import Testing
import ViewfinderBench

/// `Bench.control` on a short live run: the figures come from real clients (curl on the preview and the
/// event stream, URLSession for the paced requests). No timing thresholds: the machine is shared.
@Suite(.serialized, .tags(.live, .process, .network), .tier) struct ControlBenchTests {
    @Test func figuresAreRealWithAndWithoutAViewer() throws {
        let r = try Bench.control(frames: 30, rounds: 1, requestRate: 20, requestSeconds: 1, events: 3, attack: (6, 4, 4))
        // Every frame goes through offer, with or without a viewer.
        #expect(r.idle.frames >= 30)
        #expect(r.watched.frames >= 30)
        // Nobody watching: nothing reduced, nothing encoded.
        #expect(r.idle.offered == 0)
        #expect(r.idle.encoded == 0)
        // One viewer: frames reduced, JPEGs made and received, 1280x720 reduced to 640x360.
        #expect(r.watched.offered > 0)
        #expect(r.watched.encoded > 0)
        #expect(r.partsReceived > 0)
        #expect(r.jpegWidth == 640)
        #expect(r.jpegHeight == 360)
        #expect(r.jpegMeanBytes > 1000)
        #expect(r.idle.offerMeanMs > 0)
        #expect(r.watched.offerMeanMs > 0)
        #expect(r.idle.cpuMsPerFrame > 0)
        // The reduction's CPU time is taken only for reduced frames.
        #expect(r.idle.reductions == 0)
        // A frame is counted as offered when it is handed over and as reduced when its reduction ends, read a moment
        // apart at each edge of the measured window: one frame may straddle each edge (seen once: 10 reductions, 9 offered).
        #expect(abs(r.watched.reductions - r.watched.offered) <= 2, "\(r.watched.reductions) reductions, \(r.watched.offered) offered")
        #expect(r.watched.reductionCPUMeanMs > 0)
        #expect(r.clockReadNs > 0)
        #expect(r.processors >= 1)
        // 20 requests/s for 1 s, alternating: 10 GET and 10 PATCH, all answered; the same with a new connection each.
        #expect(r.requestErrors == 0, "\(r.firstRequestError ?? "")")
        #expect(
            r.latencies.map(\.request) == [
                "GET /api/state", "PATCH /api/stages/compose0", "GET /api/state, new connection each",
                "PATCH /api/stages/compose0, new connection each",
            ])
        #expect(r.latencies.map(\.count) == [10, 10, 10, 10])
        #expect(r.latencies.allSatisfy { $0.p50 > 0 && $0.p50 <= $0.p95 && $0.p95 <= $0.p99 && $0.p99 <= $0.max })
        // Composition events reached the SSE client, each matched to its bus-loop hand-over.
        #expect(r.events >= 3)
        #expect(r.eventP50 > 0 && r.eventP50 <= r.eventMax)
        // Under attack (6 idle, 4 slowloris, 4 never-reading stream clients): every request answered.
        let a = try #require(r.attack)
        #expect((a.idle, a.slowloris, a.streams) == (6, 4, 4))
        #expect(a.latencies.map(\.request) == ["GET /api/state", "PATCH /api/stages/compose0"])
        #expect(a.latencies.map(\.count) == [10, 10])
        #expect(a.failedConnects == 0)
        #expect(a.streaming + a.refusedStreams <= 4)
    }

}
