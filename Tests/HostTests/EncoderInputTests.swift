import Foundation
import GStreamerKit
@testable import Host
import TestSupport
import Testing

/// Video encoders get 4:2:0 unless the description names a format: a caps filter before each (`EncoderInput`).
@Suite struct EncoderInputTests {
    static func constrained(_ text: String) throws -> String {
        EncoderInput.constrained(try ParsedDescription.parse(text)).render()
    }

    @Test func anEncoderAfterAStageGetsI420() throws {
        #expect(
            try Self.constrained("videotestsrc ! grid ! videoconvert ! x264enc ! h264parse ! fakesink")
                == "videotestsrc ! grid ! videoconvert ! video/x-raw,format=I420 ! x264enc ! h264parse ! fakesink")
        // Every encoder of a description, each branch of a tee, after a reference too.
        #expect(
            try Self.constrained("videotestsrc ! tee name=t ! queue ! x264enc ! fakesink t. ! queue ! x265enc ! fakesink")
                == "videotestsrc ! tee name=t ! queue ! video/x-raw,format=I420 ! x264enc ! fakesink t. ! queue ! video/x-raw,format=I420 ! x265enc ! fakesink")
        #expect(try Self.constrained("t. ! x264enc ! fakesink videotestsrc ! tee name=t") == "t. ! video/x-raw,format=I420 ! x264enc ! fakesink videotestsrc ! tee name=t")
    }

    @Test func aWrittenFormatIsKept() throws {
        for text in [
            "videotestsrc ! video/x-raw,format=Y444 ! x264enc ! fakesink",
            "videotestsrc ! video/x-raw,format=Y444 ! queue ! videoconvert ! x264enc ! fakesink",
            "videotestsrc ! grid ! videoconvert ! video/x-raw, format=(string)Y42B ! videoscale ! x264enc ! fakesink",
            "videotestsrc ! videoconvert ! capsfilter caps=video/x-raw,format=Y444 ! x264enc ! fakesink",
        ] {
            #expect(try Self.constrained(text) == text)
        }
        // A format written before a stage says what the stage gets, not what the encoder gets.
        #expect(
            try Self.constrained("videotestsrc ! video/x-raw,format=Y444 ! grid ! videoconvert ! x264enc ! fakesink")
                == "videotestsrc ! video/x-raw,format=Y444 ! grid ! videoconvert ! video/x-raw,format=I420 ! x264enc ! fakesink")
        // Caps without a format do not count: the format is added to them (two caps in a row do not parse), or after
        // caps that are not raw video alone, a capsfilter element goes in.
        #expect(
            try Self.constrained("videotestsrc ! videoconvert ! video/x-raw,width=320 ! x264enc ! fakesink")
                == "videotestsrc ! videoconvert ! video/x-raw,width=320,format=I420 ! x264enc ! fakesink")
        #expect(
            try Self.constrained("videotestsrc ! videoconvert ! video/x-raw ! x264enc ! fakesink")
                == "videotestsrc ! videoconvert ! video/x-raw,format=I420 ! x264enc ! fakesink")
        #expect(
            try Self.constrained("videotestsrc ! videoconvert ! video/x-raw;video/x-bayer ! x264enc ! fakesink")
                == "videotestsrc ! videoconvert ! video/x-raw;video/x-bayer ! capsfilter caps=video/x-raw,format=I420 ! x264enc ! fakesink")
        // Every rewritten description still parses as gst_parse_launch reads it, the encoder fed I420.
        for text in ["videotestsrc ! video/x-raw,width=320,height=240 ! x264enc ! fakesink", "videotestsrc ! video/x-raw;video/x-bayer ! x264enc ! fakesink"] {
            let pipeline = try Pipeline.parse(try Self.constrained(text))
            let encoder = try #require(pipeline.describedElements.first { $0.factoryName == "x264enc" })
            #expect(encoder.peerCaps(pad: "sink")?.fixatedField("format") == "I420")
        }
    }

    @Test func encodersThatTakeOnly420AndImageEncodersAreLeftAlone() throws {
        for text in [
            "videotestsrc ! videoconvert ! vp8enc ! fakesink", "videotestsrc ! videoconvert ! jpegenc ! fakesink",
            "videotestsrc ! videoconvert ! pngenc ! fakesink", "audiotestsrc ! audioconvert ! avenc_aac ! fakesink",
        ] {
            #expect(try Self.constrained(text) == text)
        }
        #expect(ElementFactoryInfo("x264enc").flatMap(EncoderInput.format420) == "I420")
        #expect(ElementFactoryInfo("vp8enc").flatMap(EncoderInput.format420) == nil)
        #expect(ElementFactoryInfo("jpegenc").flatMap(EncoderInput.format420) == nil)
        #expect(ElementFactoryInfo("x264enc")?.isVideoEncoder == true)
        #expect(ElementFactoryInfo("jpegenc")?.isVideoEncoder == false)
        #expect(ElementFactoryInfo("nosuchelement") == nil)
    }

    /// What a built session offers each video encoder of every shipped pipeline (a caps query through the built
    /// pipeline, as negotiation will ask): 8-bit 4:2:0 only.
    @Test func everyShippedPipelineFeedsItsEncodersFourTwoZero() throws {
        let dir = Tools.root.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pipeline") }.sorted()
        let only420 = try Caps("video/x-raw,format={ I420, NV12, YV12, NV21 }")
        var encoders = 0
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            // Outputs go under a temporary directory (the pipelines write to out/... relative to the repository).
            let scratch = Tools.tempDir()
            let description = try PipelineFile.description(fromFileText: text).replacingOccurrences(of: "location=out/", with: "location=\(scratch.path)/out/")
            guard description.contains("enc") else { continue }
            for word in description.split(separator: " ") where word.contains("location=\(scratch.path)/out/") {
                let path = String(word.split(separator: "=", maxSplits: 1)[1])
                try FileManager.default.createDirectory(
                    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            var options = SessionOptions()
            // Inputs a pipeline reads may not exist here (any file does: nothing plays); the ports it serves on may
            // be taken: both are beside the point.
            if description.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("filesrc") {
                options.overrides.append("filesrc.location=\(dir.appendingPathComponent(file).path)")
            }
            if description.contains("rtspserve") { options.overrides.append("rtspserve.port=\(Tools.freePort())") }
            let session = try Session(description: description, options: options)
            for p in session.pipelines {
                for e in p.describedElements where ElementFactoryInfo(e.factoryName)?.isVideoEncoder == true && e.factoryName != "jpegenc" {
                    encoders += 1
                    let offered = try #require(e.peerCaps(pad: "sink"), "\(file): \(e.name)")
                    let raw = offered.intersect(try Caps("video/x-raw"))
                    #expect(!raw.isEmpty && raw.isSubset(of: only420), "\(file): \(e.name) (\(e.factoryName)) is offered \(offered)")
                }
            }
        }
        #expect(encoders >= 10)
    }

    /// The shipped pipelines that write video files, run short through the real binary in a scratch directory:
    /// ffprobe reads H.264 High (not 4:4:4) in yuv420p from every file they write (the HLS segments too).
    @Test(.tags(.process)) func ffprobeReadsYUV420FromEveryShippedRecording() throws {
        let cases: [(String, [String], [String])] = [
            ("demo-file", ["videotestsrc.num-buffers=20"], ["out/demo.mp4"]),
            ("greenscreen-photo", ["videotestsrc.num-buffers=20", "imagefreeze.num-buffers=20"], ["out/greenscreen.mp4"]),
            ("record-mp4", ["videotestsrc.num-buffers=20", "audiotestsrc.num-buffers=29"], ["out/record.mp4"]),
            ("hls", ["videotestsrc.num-buffers=20"], ["out/hls/segment00000.ts"]),
            ("record-clean-stream-overlay", ["videotestsrc.num-buffers=20"], ["out/clean.mkv", "out/hls-overlay/segment00000.ts"]),
        ]
        for (name, sets, outputs) in cases {
            let d = Tools.tempDir()
            for dir in ["out/hls", "out/hls-overlay"] {
                try FileManager.default.createDirectory(at: d.appendingPathComponent(dir), withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(at: d.appendingPathComponent(".testdata"), withDestinationURL: Tools.root.appendingPathComponent(".testdata"))
            let pipeline = Tools.root.appendingPathComponent("pipelines/\(name).pipeline").path
            let r = try Tools.run(Tools.viewfinder, ["run", "--quiet", pipeline] + sets.flatMap { ["--set", $0] }, cwd: d, timeout: 60)
            #expect(r.code == 0, "\(name): \(r.err)")
            for out in outputs {
                let probe = try Tools.run(
                    "/usr/bin/ffprobe",
                    ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,profile,pix_fmt", "-of", "csv=p=0",
                     d.appendingPathComponent(out).path], timeout: 30)
                // MPEG-TS lists the stream once per program as well: every line must say the same.
                let lines = Set(probe.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
                #expect(lines == ["h264,High,yuv420p"], "\(name) \(out): \(probe.out) \(probe.err)")
            }
        }
    }

    /// A stage's BGRA output through videoconvert into x264enc: ffprobe reads High, yuv420p; with Y444 written,
    /// what was written.
    @Test(.tags(.process)) func ffprobeReadsYUV420UnlessAFormatIsWritten() throws {
        let d = Tools.tempDir()
        for (caps, expected) in [("", "yuv420p"), ("video/x-raw,format=Y444 ! ", "yuv444p")] {
            let out = d.appendingPathComponent("\(expected).mp4").path
            let r = try Tools.vf(
                "launch", "--quiet",
                "videotestsrc num-buffers=20 ! video/x-raw,format=BGRA,width=320,height=240 ! grid ! videoconvert ! \(caps)x264enc"
                    + " speed-preset=veryfast ! h264parse ! mp4mux ! filesink location=\(out)")
            #expect(r.code == 0, "\(r.err)")
            let probe = try Tools.run(
                "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=profile,pix_fmt", "-of", "csv=p=0", out], timeout: 30)
            let fields = probe.out.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(fields == (expected == "yuv420p" ? "High,yuv420p" : "High 4:4:4 Predictive,yuv444p"), "\(probe.out) \(probe.err)")
        }
    }
}
