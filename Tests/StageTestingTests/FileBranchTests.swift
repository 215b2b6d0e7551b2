import Foundation
import GStreamerKit
import StageTesting
import Testing

/// The simulated multifilesink branch: what it reads from a fragment, what it writes and reports.
@Suite struct FileBranchTests {
    @Test func aFragmentsSinkNameLocationAndIndexAreRead() throws {
        let b = try #require(
            FileBranch(
                fragment:
                    #"queue ! jpegenc quality=90 ! jifmux ! multifilesink name=cap_snapshot_files location="/tmp/a b/.partial/IMG_%05d.jpg" index=7 post-messages=true"#,
                content: .fixed(Data([1, 2, 3]))))
        #expect(b.sinkName == "cap_snapshot_files")
        #expect(b.location == "/tmp/a b/.partial/IMG_%05d.jpg")
        #expect(b.index == 7)
    }

    @Test func aFragmentWithoutMultifilesinkIsNoFileBranch() {
        #expect(FileBranch(fragment: "queue ! fakesink", content: .fixed(Data())) == nil)
        #expect(FileBranch(fragment: "multifilesink name=x", content: .fixed(Data())) == nil)
    }
}
