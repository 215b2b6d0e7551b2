import GStreamerKit
import Overlay
import StageTesting
import Stages
import Testing

@Suite struct GridStageTests {
    static let (w, h) = (1280, 720)
    static let thirds = [Int(Double(1280) / 3), Int(2 * Double(1280) / 3)]  // 426, 853

    private func harness(_ format: String, _ assignments: [(String, String)] = []) throws -> StageHarness {
        try StageHarness(kind: "grid", properties: assignments, info: VideoInfo(format: format, width: Self.w, height: Self.h))
    }

    /// Columns of `row` that the grid brightened (luma for YUV, red for RGBA).
    private func brightColumns(_ frame: VideoFrame, row: Int) throws -> [Int] {
        let rgba = frame.info.format == "RGBA"
        let values = try frame.row(row, bytesPerPixel: rgba ? 4 : 1)
        return values.indices.filter { values[$0] > (rgba ? 0 : 16) }
    }

    @Test func thirdsBrightenTheThirdColumnsOfI420() throws {
        let h = try harness("I420")
        let frame = try h.push()
        // White at 75% over black luma 16: 16 + 0.75 * 219 ≈ 180.
        for x in Self.thirds {
            let column = try frame.column(x)
            #expect(column.allSatisfy { (170...195).contains($0) }, "column \(x): \(Set(column).sorted())")
        }
        let centre = try frame.column(640)
        let dark = centre.indices.filter { centre[$0] == 16 }
        // The centre column is dark except where it crosses the horizontal thirds (rows 240 and 480).
        #expect(dark.count >= Self.h - 4)
        #expect(centre.indices.filter { centre[$0] != 16 }.allSatisfy { abs($0 - 240) <= 1 || abs($0 - 480) <= 1 })
        // Away from the horizontal lines, only the thirds (and at most a neighbour each) are bright.
        let bright = try brightColumns(frame, row: 100)
        #expect(bright.contains(426) && bright.contains(853))
        #expect(bright.allSatisfy { x in Self.thirds.contains { abs($0 - x) <= 1 } }, "\(bright)")
        // Chroma stays neutral: the grid is grey.
        let u = try frame.column(213, plane: 1)
        #expect(u.allSatisfy { (126...130).contains($0) })
    }

    @Test func thirdsBrightenTheThirdColumnsOfRGBA() throws {
        let h = try harness("RGBA")
        let frame = try h.push()
        for x in Self.thirds {
            for channel in 0..<3 {
                let column = try frame.column(x, bytesPerPixel: 4, channel: channel)
                #expect(column.allSatisfy { (0xbe...0xc2).contains($0) }, "column \(x) channel \(channel): \(Set(column).sorted())")
            }
        }
        let centre = try frame.column(640, bytesPerPixel: 4)
        #expect(centre.indices.filter { centre[$0] != 0 }.allSatisfy { abs($0 - 240) <= 1 || abs($0 - 480) <= 1 })
        #expect(centre.filter { $0 == 0 }.count >= Self.h - 4)
        let bright = try brightColumns(frame, row: 100)
        #expect(bright.contains(426) && bright.contains(853))
        #expect(bright.allSatisfy { x in Self.thirds.contains { abs($0 - x) <= 1 } }, "\(bright)")
    }

    @Test func horizontalThirdsAreDrawnToo() throws {
        let h = try harness("I420")
        let frame = try h.push()
        let column = try frame.column(100)
        let bright = column.indices.filter { column[$0] > 16 }
        #expect(bright.contains(240) && bright.contains(480))
        #expect(bright.allSatisfy { abs($0 - 240) <= 1 || abs($0 - 480) <= 1 }, "\(bright)")
    }

    @Test func updatingLinesMovesTheColumnsOnTheNextFrame() throws {
        let h = try harness("I420")
        let first = try h.push()
        try h.stages[0].stage.update("lines", value: .set(["golden"]))
        #expect(h.stage(GridStage.self)?.style.lines == [.golden])
        let second = try h.push()
        #expect(h.overlays(ofFrame: second.index).count == 1)
        #expect(h.overlays(ofFrame: second.index)[0] !== h.overlays(ofFrame: first.index)[0])
        let bright = try brightColumns(second, row: 100)
        #expect(bright.contains(488) && bright.contains(791), "\(bright)")
        #expect(bright.allSatisfy { x in [488, 791].contains { abs($0 - x) <= 1 } }, "\(bright)")
        // The old third is dark again, except where it crosses the horizontal golden lines (rows 275, 444).
        let old = try second.column(426)
        #expect(old.indices.filter { old[$0] != 16 }.allSatisfy { abs($0 - 275) <= 1 || abs($0 - 444) <= 1 })
    }

    @Test func colourAndWidthUpdatesApply() throws {
        let h = try harness("RGBA", [("width", "6")])
        let wide = try h.push()
        // 6 px at 1080p is 4 px at 720p.
        #expect(try brightColumns(wide, row: 100).count == 8)
        try h.stages[0].stage.update("color", value: .color(.red))
        try h.stages[0].stage.update("width", value: .double(1.5))
        let red = try h.push()
        #expect(try red.row(100, bytesPerPixel: 4, channel: 0)[426] == 255)
        #expect(try red.row(100, bytesPerPixel: 4, channel: 1)[426] == 0)
        #expect(try red.row(100, bytesPerPixel: 4, channel: 2)[426] == 0)
    }

    @Test func badUpdatesAreRejectedNamingTheProblem() throws {
        let h = try harness("I420")
        #expect(throws: StageError(.usage, "grid: cannot set 'width' to 'thirds'")) {
            try h.stages[0].stage.update("width", value: .set(["thirds"]))
        }
        #expect(throws: StageError.self) { try h.stages[0].stage.update("lines", value: .set(["fifths"])) }
        // The style in force is unchanged.
        #expect(h.stage(GridStage.self)?.style.lines == [.thirds])
    }

    @Test func theOverlayIsRenderedOncePerSize() throws {
        let h = try harness("I420")
        let outs = try h.push(count: 2)
        let overlays = outs.map { h.overlays(ofFrame: $0.index) }
        #expect(overlays.map(\.count) == [1, 1])
        #expect(overlays[0][0] === overlays[1][0])
        // Both frames got the same pixels.
        #expect(outs[0].buffer.bytes() == outs[1].buffer.bytes())
        // Cut into 8-row bands: the two bands holding a horizontal third (rows 240, 480) are one full-width
        // rectangle each; between them the 1-px columns (2 px at 1080p is 1 px at 720p, 427 px apart) are
        // joined down the bands into three tall rectangles per column.
        let comp = overlays[0][0]
        #expect(comp.rectangleCount == 2 + 3 * 2)
        #expect(comp.coveredPixels == 2 * Self.w * 8 + 2 * (Self.h - 2 * 8))
        #expect(comp.coveredPixels < Self.w * Self.h / 10)

        // A new size renders a new overlay, which is then cached in turn.
        try h.setCaps(VideoInfo(format: "I420", width: 640, height: 360))
        let smallFrames = try h.push(count: 2)
        let small = smallFrames.map { h.overlays(ofFrame: $0.index) }
        #expect(small[0][0] !== overlays[0][0])
        #expect(small[0][0] === small[1][0])
        let bright = try brightColumns(smallFrames[0], row: 50)
        #expect(bright.contains(213) && bright.contains(426), "\(bright)")
    }

    @Test func noneDrawsNothing() throws {
        let h = try harness("I420", [("lines", "none")])
        let out = try h.push()
        #expect(h.overlays(ofFrame: out.index).first?.rectangleCount == 0)
        #expect(out.buffer.bytes() == StageHarness.blackBytes(h.info))
    }

    @Test func descriptorOffersOverlayFormats() {
        let d = GridStage.descriptor
        #expect(d.kind == "grid")
        #expect(d.properties.map(\.name) == ["lines", "color", "width"])
        #expect(d.formats.contains("I420") && d.formats.contains("NV12") && d.formats.contains("RGBA"))
        #expect(d.outputs.isEmpty)
    }
}
