import FrameAnalysis
import Testing
import ViewfinderBench

/// `bench redact`'s judge alone: a textured frame with a face box, covered in known ways.
@Suite struct RedactJudgeTests {
    static let width = 160, height = 96

    /// A deterministic texture: neighbours 20-60 levels apart.
    static func textured() -> [UInt8] {
        var state: UInt32 = 12345
        return (0..<(width * height)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(60 + Int(state >> 24) % 120)
        }
    }

    /// `input` with the box (x, y, w, h) replaced: flat at its own mean (a perfect blur), or `value` (a fill).
    static func covered(_ input: [UInt8], _ b: (Int, Int, Int, Int), value: UInt8? = nil) -> [UInt8] {
        var out = input
        var sum = 0
        for y in b.1..<(b.1 + b.3) { for x in b.0..<(b.0 + b.2) { sum += Int(input[y * width + x]) } }
        let mean = UInt8(sum / (b.2 * b.3))
        for y in b.1..<(b.1 + b.3) { for x in b.0..<(b.0 + b.2) { out[y * width + x] = value ?? mean } }
        return out
    }

    let face = Box(x: 40, y: 24, width: 48, height: 48)

    @Test func aFaceCoveredWithRoomIsNotLeakedAndTheRoomIsOverCover() {
        let input = Self.textured(), judge = RedactJudge()
        let out = Self.covered(input, (32, 16, 64, 64))
        let v = judge.judge(input: input, output: out, width: Self.width, height: Self.height, faces: [face])
        #expect(v.leaked.isEmpty && v.bare.isEmpty)
        // 20x12 cells, all textured; the face touches cells 5...11 x 3...9 (7x7 = 49); the cover 4...11 x 2...9 (8x8):
        // 15 covered cells outside the face's.
        #expect(v.outside == 240 - 49 && v.coveredOutside == 15)
        // A fill (a big shift of the mean) covers as well.
        let filled = judge.judge(input: input, output: Self.covered(input, (32, 16, 64, 64), value: 16), width: Self.width, height: Self.height, faces: [face])
        #expect(filled.leaked.isEmpty)
    }

    @Test func aCoverShortOfTheFaceLeaksAndNoCoverIsAMiss() {
        let input = Self.textured(), judge = RedactJudge()
        // The cover stops 16 px short on the right: the judged cells there (inside the 10 % inset) are bare.
        let short = judge.judge(input: input, output: Self.covered(input, (32, 16, 40, 64)), width: Self.width, height: Self.height, faces: [face])
        #expect(short.leaked == [0] && short.bare.isEmpty)
        let none = judge.judge(input: input, output: input, width: Self.width, height: Self.height, faces: [face])
        #expect(none.leaked == [0] && none.bare == [0] && none.coveredOutside == 0)
        // A weak blur (half the detail kept) is no cover.
        var weak = input
        for i in weak.indices { weak[i] = UInt8((Int(input[i]) + 120) / 2) }
        #expect(judge.judge(input: input, output: weak, width: Self.width, height: Self.height, faces: [face]).bare == [0])
    }

    @Test func flatCellsAreNotJudged() {
        // A flat picture: nothing textured, nothing to leak or to over-cover, whatever the output.
        let flat = [UInt8](repeating: 120, count: Self.width * Self.height)
        let v = RedactJudge().judge(input: flat, output: flat, width: Self.width, height: Self.height, faces: [face])
        #expect(v.leaked.isEmpty && v.outside == 0)
    }
}
