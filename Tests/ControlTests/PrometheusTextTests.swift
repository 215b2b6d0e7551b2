import Foundation
import Testing

@testable import Control

/// The exposition text, byte for byte: help and type lines, label escaping, counters, gauges, a summary, values.
@Suite struct PrometheusTextTests {
    @Test func familiesRenderWithHelpTypeAndEscapedLabels() {
        let text = PrometheusText.render([
            .init(
                name: "viewfinder_frames_in_total", help: "Frames in", kind: .counter,
                samples: [.init(labels: [("pipeline", "main")], value: 120), .init(labels: [("pipeline", #"a "b" \c"# + "\nd")], value: 0)]),
            .init(
                name: "viewfinder_fps", help: "Frames per second\nover the run \\ so far", kind: .gauge,
                samples: [.init(labels: [("pipeline", "main")], value: 29.5)]),
            .init(
                name: "viewfinder_stage_process_seconds", help: "Per frame", kind: .summary,
                samples: [
                    .init(labels: [("stage", "compose0"), ("quantile", "0.5")], value: 0.00025),
                    .init(labels: [("stage", "compose0"), ("quantile", "0.95")], value: .nan),
                    .init(suffix: "_sum", labels: [("stage", "compose0")], value: 0.5),
                    .init(suffix: "_count", labels: [("stage", "compose0")], value: 2000),
                ]),
            .init(name: "process_cpu_seconds_total", help: "CPU", kind: .counter, samples: [.init(value: 2.53)]),
        ])
        #expect(
            text == """
                # HELP viewfinder_frames_in_total Frames in
                # TYPE viewfinder_frames_in_total counter
                viewfinder_frames_in_total{pipeline="main"} 120
                viewfinder_frames_in_total{pipeline="a \\"b\\" \\\\c\\nd"} 0
                # HELP viewfinder_fps Frames per second\\nover the run \\\\ so far
                # TYPE viewfinder_fps gauge
                viewfinder_fps{pipeline="main"} 29.5
                # HELP viewfinder_stage_process_seconds Per frame
                # TYPE viewfinder_stage_process_seconds summary
                viewfinder_stage_process_seconds{stage="compose0",quantile="0.5"} 0.00025
                viewfinder_stage_process_seconds{stage="compose0",quantile="0.95"} NaN
                viewfinder_stage_process_seconds_sum{stage="compose0"} 0.5
                viewfinder_stage_process_seconds_count{stage="compose0"} 2000
                # HELP process_cpu_seconds_total CPU
                # TYPE process_cpu_seconds_total counter
                process_cpu_seconds_total 2.53

                """)
    }

    @Test func escapingFollowsTheFormat() {
        // Label values: backslash, double quote, newline; nothing else (a tab and non-ASCII stay as they are).
        #expect(PrometheusText.escapeLabelValue(#"C:\dir "x""# + "\ny\tz é") == #"C:\\dir \"x\"\ny"# + "\tz é")
        // Help: backslash and newline only; a quote stays.
        #expect(PrometheusText.escapeHelp(#"a "q" \ b"# + "\nc") == #"a "q" \\ b\nc"#)
    }

    @Test func valuesAreWrittenAsPrometheusReadsThem() {
        #expect(PrometheusText.number(0) == "0")
        #expect(PrometheusText.number(-0.0) == "0")
        #expect(PrometheusText.number(93_339_648) == "93339648")
        #expect(PrometheusText.number(-3) == "-3")
        #expect(PrometheusText.number(0.1) == "0.1")
        #expect(PrometheusText.number(1e-05) == "1e-05")
        #expect(PrometheusText.number(1e20) == "1e+20")
        #expect(PrometheusText.number(.nan) == "NaN")
        #expect(PrometheusText.number(.infinity) == "+Inf")
        #expect(PrometheusText.number(-.infinity) == "-Inf")
    }

    @Test func whatWouldBreakTheTextIsLeftOut() {
        let text = PrometheusText.render([
            .init(name: "bad-name", help: "x", kind: .gauge, samples: [.init(value: 1)]),
            .init(name: "9starts_with_digit", help: "x", kind: .gauge, samples: [.init(value: 1)]),
            .init(
                name: "ok:name_1", help: "kept", kind: .gauge,
                samples: [
                    .init(labels: [("a", "1")], value: 1),
                    .init(labels: [("a", "1")], value: 2),  // the same series again
                    .init(labels: [("__reserved", "1")], value: 3),
                    .init(labels: [("bad:label", "1")], value: 4),
                    .init(labels: [("a", "2"), ("a", "3")], value: 5),  // a label twice
                    .init(labels: [("a", "2")], value: 6),
                ]),
            .init(name: "described_only", help: "no samples", kind: .untyped),
        ])
        #expect(
            text == """
                # HELP ok:name_1 kept
                # TYPE ok:name_1 gauge
                ok:name_1{a="1"} 1
                ok:name_1{a="2"} 6
                # HELP described_only no samples
                # TYPE described_only untyped

                """)
        #expect(PrometheusText.isMetricName("process_cpu_seconds_total") && !PrometheusText.isMetricName(""))
        #expect(PrometheusText.isLabelName("pipeline") && !PrometheusText.isLabelName("quan-tile") && !PrometheusText.isLabelName("1a"))
    }

    @Test func familySetKeepsTheFirstKindAndGroupsSamplesByName() {
        var set = FamilySet()
        set.add("a_total", .counter, "first", .init(labels: [("pipeline", "x")], value: 1))
        set.add("b", .gauge, "b", .init(value: 2))
        set.add("a_total", .gauge, "another kind", .init(labels: [("pipeline", "y")], value: 3))
        set.add("a_total", .counter, "another help", .init(labels: [("pipeline", "z")], value: 4))
        let f = set.families
        #expect(f.map(\.name) == ["a_total", "b"])
        #expect(f[0].help == "first" && f[0].kind == .counter)
        #expect(f[0].samples.map(\.value) == [1, 4])
    }
}
