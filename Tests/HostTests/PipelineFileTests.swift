import Testing

@testable import Host

@Suite struct PipelineFileTests {
    @Test func commentsAndNewlines() throws {
        let text = """
            #!/usr/bin/env viewfinder run
            # Grid over a test pattern.
            #   videotestsrc -> grid -> window
            videotestsrc pattern=ball   # moving ball
            ! grid lines=thirds
            ! autovideosink

            """
        #expect(
            try PipelineFile.description(fromFileText: text)
                == "videotestsrc pattern=ball    ! grid lines=thirds ! autovideosink")
    }

    @Test func backslashContinuations() throws {
        let text = "videotestsrc \\\n  ! autovideosink\\\n"
        #expect(try PipelineFile.description(fromFileText: text) == "videotestsrc    ! autovideosink")
    }

    @Test func hashInsideQuotesOrWordsIsKept() throws {
        let text = #"multifilesink location="shots #1/%05d.jpg" next=a#b # comment"#
        #expect(
            try PipelineFile.description(fromFileText: text)
                == #"multifilesink location="shots #1/%05d.jpg" next=a#b"#)
    }

    @Test func escapedHashIsKept() throws {
        #expect(try PipelineFile.description(fromFileText: ##"fakesink name=\#x"##) == ##"fakesink name=\#x"##)
    }

    @Test func quotesSpanningLinesBecomeSpaces() throws {
        #expect(
            try PipelineFile.description(fromFileText: "textoverlay text=\"a\nb\" ! fakesink")
                == "textoverlay text=\"a b\" ! fakesink")
    }

    @Test func crlfLineEndings() throws {
        #expect(try PipelineFile.description(fromFileText: "a # x\r\n! b\r\n") == "a  ! b")
    }

    @Test func emptyFileIsAnError() {
        let expected = DescriptionError(
            message: "pipeline file has no description: expected a gst-launch description after the comments, "
                + "e.g. 'videotestsrc ! autovideosink'",
            token: "", offset: -1)
        #expect(throws: expected) { try PipelineFile.description(fromFileText: "# only a comment\n\n   \n") }
        #expect(throws: expected) { try PipelineFile.description(fromFileText: "") }
    }

    @Test func resultParses() throws {
        let text = """
            # two branches
            videotestsrc ! tee name=t
              t. ! queue ! fakesink   # first
              t. ! queue ! fakesink   # second
            """
        let description = try PipelineFile.description(fromFileText: text)
        #expect(
            try ParsedDescription.parse(description).render()
                == "videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue ! fakesink")
    }
}
