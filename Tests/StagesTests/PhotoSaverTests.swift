import Foundation
import FrameAnalysis
import GStreamerKit
import Synchronization
import Testing

@testable import Stages

@Suite struct PhotoSaverTests {
    /// The reports a saver made, in order.
    final class Reports: Sendable {
        private let list = Mutex<[PhotoSaver.Report]>([])
        func append(_ r: PhotoSaver.Report) { list.withLock { $0.append(r) } }
        var all: [PhotoSaver.Report] { list.withLock { $0 } }
    }

    static func saver(_ dir: String = "/tmp/vf-saver-\(UUID().uuidString)") -> (PhotoSaver, Reports) {
        let s = PhotoSaver(stage: "cap0", directory: dir, index: false, cropName: "none", maxPending: 4)
        let reports = Reports()
        s.onReport { r in reports.append(r) }
        return (s, reports)
    }

    @Test func defaultBranchesWriteIntoThePartialArea() {
        let (s, _) = Self.saver("out/photos")
        #expect(
            s.defaultBranch(for: "snapshot", firstNumber: 7, quality: 80, thumbnails: true, full: false)
                == "queue max-size-buffers=8 ! jpegenc quality=80 ! jifmux ! multifilesink name=cap0_snapshot_files location=\"out/photos/.partial/IMG_%05d.jpg\" index=7 post-messages=true"
        )
        #expect(s.defaultBranch(for: "thumbnail", firstNumber: 1, quality: 80, thumbnails: false, full: false) == nil)
        #expect(s.defaultBranch(for: "full", firstNumber: 1, quality: 80, thumbnails: true, full: false) == nil)
        #expect(
            s.defaultBranch(for: "full", firstNumber: 2, quality: 90, thumbnails: true, full: true)?.hasSuffix(
                "location=\"out/photos/.partial/IMG_%05d_full.jpg\" index=2 post-messages=true") == true)
        #expect(s.createsDirectories == ["out/photos", "out/photos/thumbs", "out/photos/.partial", "out/photos/.partial/thumbs"])
    }

    @Test func aReportedFileThatCannotBeReadBackFailsTheSave() {
        let (s, reports) = Self.saver()
        s.outputsPlanned(["snapshot": .defaultBranch("..."), "thumbnail": .linked])
        let tracked = s.register(number: 3, pts: 100, trigger: .manual, composition: nil, crop: nil, full: false, thumbnails: true, date: Date(timeIntervalSince1970: 1_767_225_600))
        #expect(tracked)
        s.busMessage(
            BusMessage(
                source: "cap0_snapshot_files",
                structure: MessageStructure(
                    "GstMultiFileSink", [("filename", .string("/nonexistent/IMG_00003.jpg")), ("timestamp", .uint64(100))])))
        s.close()
        let got = reports.all
        #expect(got.count == 1)
        #expect(got.first?.events == [.saveFailed("cannot read back '/nonexistent/IMG_00003.jpg'", time: 100)])
        #expect(got.first?.message == CaptureMessage(.error(number: 3, file: nil, reason: "cannot read back '/nonexistent/IMG_00003.jpg'")))
        #expect(s.savedPhotos == 0)
    }

    @Test func aFailedBranchFailsItsPendingPhotos() {
        let (s, reports) = Self.saver()
        s.outputFailed("snapshot", reason: "No space left on device")
        s.outputsPlanned(["snapshot": .defaultBranch("...")])
        _ = s.register(number: 1, pts: 5, trigger: .at, composition: nil, crop: nil, full: false, thumbnails: false, date: Date(timeIntervalSince1970: 1_767_225_600))
        _ = s.register(number: 2, pts: 6, trigger: .at, composition: nil, crop: nil, full: false, thumbnails: false, date: Date(timeIntervalSince1970: 1_767_225_600))
        s.outputFailed("snapshot", reason: "No space left on device")
        s.close()
        let events = reports.all.map(\.events)
        #expect(
            events == [
                [.saveFailed("snapshot branch: No space left on device", time: 0)],
                [
                    .saveFailed("snapshot branch: No space left on device", time: 5),
                    .saveFailed("snapshot branch: No space left on device", time: 6),
                ],
            ])
    }

    @Test func untrackedPhotosAreKeptOnlyForTheIndex() {
        let (s, reports) = Self.saver()
        // Nothing planned: the snapshot branch is the user's own; with index=false nothing is kept.
        #expect(!s.register(number: 1, pts: 5, trigger: .auto, composition: nil, crop: nil, full: false, thumbnails: true, date: Date(timeIntervalSince1970: 1_767_225_600)))
        s.outputFailed("thumbnail", reason: "x")
        s.close()
        #expect(reports.all.map(\.events) == [[.saveFailed("thumbnail branch: x", time: 0)]])
    }
}
