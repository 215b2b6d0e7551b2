import Testing

@testable import Overlay

@Suite struct GridLineTests {
    @Test func rawValuesAreTheCommandLineNames() {
        #expect(
            GridLine.allCases.map(\.rawValue) == [
                "thirds", "golden", "crosshair", "center", "diagonals",
                "spiral-tl", "spiral-tr", "spiral-bl", "spiral-br", "none",
            ])
    }

    @Test func parsesSingleName() throws {
        #expect(try GridLine.parseList("thirds") == [.thirds])
    }

    @Test func parsesPlusAndCommaLists() throws {
        #expect(try GridLine.parseList("thirds+diagonals") == [.thirds, .diagonals])
        #expect(try GridLine.parseList("thirds,golden") == [.thirds, .golden])
        #expect(try GridLine.parseList(" thirds + golden,center ") == [.thirds, .golden, .center])
    }

    @Test func aliasesAndCase() throws {
        #expect(try GridLine.parseList("phi") == [.golden])
        #expect(try GridLine.parseList("spiral") == [.spiralTopLeft])
        #expect(try GridLine.parseList("Spiral-BR+CENTRE") == [.spiralBottomRight, .center])
    }

    @Test func dropsDuplicates() throws {
        #expect(try GridLine.parseList("golden+phi+thirds+golden") == [.golden, .thirds])
    }

    @Test func unknownTokenErrorNamesTokenAndChoices() {
        #expect(throws: GridLineParseError(token: "spiralz", text: "thirds+spiralz")) {
            try GridLine.parseList("thirds+spiralz")
        }
        let message = GridLineParseError(token: "spiralz", text: "thirds+spiralz").description
        #expect(message.contains("'spiralz'"))
        for line in GridLine.allCases {
            #expect(message.contains(line.rawValue))
        }
        #expect(message.contains("phi"))
    }

    @Test func emptyItemsAreErrors() {
        #expect(throws: GridLineParseError(token: "", text: "")) { try GridLine.parseList("") }
        #expect(throws: GridLineParseError(token: "", text: "thirds++golden")) {
            try GridLine.parseList("thirds++golden")
        }
        #expect(GridLineParseError(token: "", text: "").description.contains("empty"))
    }

    @Test func spiralMapping() {
        #expect(GridLine.spiralTopLeft.spiral == GoldenSpiral(eyeCorner: .topLeft))
        #expect(GridLine.spiralTopRight.spiral == GoldenSpiral(eyeCorner: .topRight))
        #expect(GridLine.spiralBottomLeft.spiral == GoldenSpiral(eyeCorner: .bottomLeft))
        #expect(GridLine.spiralBottomRight.spiral == GoldenSpiral(eyeCorner: .bottomRight))
        #expect(GridLine.thirds.spiral == nil)
    }
}
