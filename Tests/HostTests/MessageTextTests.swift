import Testing

@testable import Host

/// How bus messages are printed: element messages on one readable line, debug text in full.
struct MessageTextTests {
    @Test func elementMessageIsOneLineOfKeyValues() {
        let raw =
            "viewfinder/composition, stage=(string)compose0, rule=(string)thirds, score=(double)0.91, well-composed=(boolean)true, frame=(int)30, pts=(guint64)1000000000, advice=(string)\"move\\ the\\ subject\\ left\";"
        #expect(
            MessageText.element(source: "vf_compose0_sink", structure: raw)
                == "compose0: viewfinder/composition rule=thirds score=0.91 well-composed=true frame=30 pts=1000000000 advice=\"move the subject left\""
        )
    }

    @Test func sourceNamesTheElementWithoutAStageField() {
        #expect(
            MessageText.element(source: "multifilesink0", structure: "GstMultiFileSink, filename=(string)/tmp/a/00000.jpg, index=(int)0;")
                == "multifilesink0: GstMultiFileSink filename=/tmp/a/00000.jpg index=0")
    }

    @Test func longValuesAreShortenedAndEmptyOnesQuoted() {
        let long = String(repeating: "a", count: 200)
        let line = MessageText.element(source: "x", structure: "m, text=(string)\(long), empty=(string)\"\";")
        #expect(line == "x: m text=" + String(repeating: "a", count: MessageText.maxValueLength - 1) + "… empty=\"\"")
    }

    @Test func numbersLoseTrailingZeros() {
        #expect(MessageText.number(0.91) == "0.91")
        #expect(MessageText.number(12) == "12")
        #expect(MessageText.number(1.0 / 3) == "0.333")
        #expect(MessageText.number(-0.0001) == "-0.0001")
        #expect(MessageText.number(0) == "0")
    }

    @Test func unparsableStructureIsPrintedAsItIs() {
        #expect(MessageText.element(source: "e", structure: "not a structure, =") == "e: not a structure, =")
    }

    @Test func wholeDebugTextIsIndented() {
        let debug =
            "../gst/matroska/matroska-demux.c(6117): gst_matroska_demux_loop (): /GstPipeline:pipeline0/GstMatroskaDemux:matroskademux0:\nstreaming stopped, reason not-negotiated (-4)"
        #expect(
            MessageText.indentedDebug(debug)
                == "\n  debug: ../gst/matroska/matroska-demux.c(6117): gst_matroska_demux_loop (): /GstPipeline:pipeline0/GstMatroskaDemux:matroskademux0:\n    streaming stopped, reason not-negotiated (-4)"
        )
        #expect(MessageText.indentedDebug(nil) == "")
        #expect(
            MessageText.warning(source: "qtdemux0", factory: "qtdemux", text: "short read", debug: "a.c(1): f (): /p:\nmore")
                == "WARNING from element qtdemux0 (qtdemux): short read\n  debug: a.c(1): f (): /p:\n    more")
    }
}
