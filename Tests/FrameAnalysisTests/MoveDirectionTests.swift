import Foundation
import Testing

@testable import FrameAnalysis

@Suite struct MoveDirectionTests {
    @Test(arguments: [
        (1.0, 0.0, MoveDirection.right), (-1, 0, .left), (0, -1, .up), (0, 1, .down),
        (-1, -1, .upLeft), (1, -1, .upRight), (-1, 1, .downLeft), (1, 1, .downRight),
    ])
    func eightSectors(dx: Double, dy: Double, expected: MoveDirection) {
        #expect(MoveDirection(Vector2D(dx: dx, dy: dy)) == expected)
    }

    @Test func sectorBoundariesAre22Point5DegreesFromTheAxes() {
        // 20° above the x axis is still "right", 25° is "up-right" (y grows downwards).
        let r = 20.0 * Double.pi / 180, u = 25.0 * Double.pi / 180
        #expect(MoveDirection(Vector2D(dx: cos(r), dy: -sin(r))) == .right)
        #expect(MoveDirection(Vector2D(dx: cos(u), dy: -sin(u))) == .upRight)
        #expect(MoveDirection(.zero) == nil)
    }

    @Test func phrasesAndOpposites() {
        #expect(MoveDirection.upLeft.phrase == "up and left")
        #expect(MoveDirection.down.phrase == "down")
        #expect(MoveDirection.upLeft.opposite == .downRight)
        #expect(MoveDirection.allCases.allSatisfy { $0.opposite.opposite == $0 })
    }
}
