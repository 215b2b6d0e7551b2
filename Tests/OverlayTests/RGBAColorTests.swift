import Testing

@testable import Overlay

@Suite struct RGBAColorTests {
    @Test func parsesSixDigitHexAsOpaque() throws {
        let c = try RGBAColor.parse("#ff8000")
        #expect(c == RGBAColor(red8: 255, green8: 128, blue8: 0))
        #expect(c.alpha == 1)
        #expect(c.hex == "#ff8000ff")
    }

    @Test func parsesEightDigitHexWithAlpha() throws {
        let c = try RGBAColor.parse("#FFFFFFC0")
        #expect(c.red == 1 && c.green == 1 && c.blue == 1)
        #expect(c.alpha == 192.0 / 255)
        #expect(c.hex == "#ffffffc0")
    }

    @Test func parsesShortHex() throws {
        #expect(try RGBAColor.parse("#f0a") == RGBAColor(red8: 0xff, green8: 0x00, blue8: 0xaa))
    }

    @Test(arguments: [
        ("white", "#ffffffff"), ("black", "#000000ff"), ("red", "#ff0000ff"), ("green", "#00ff00ff"),
        ("blue", "#0000ffff"), ("yellow", "#ffff00ff"), ("cyan", "#00ffffff"), ("magenta", "#ff00ffff"),
        ("  White ", "#ffffffff"), ("transparent", "#00000000"),
    ])
    func parsesNames(name: String, hex: String) throws {
        #expect(try RGBAColor.parse(name).hex == hex)
    }

    @Test func hexRoundTrips() throws {
        for text in ["#12345678", "#00000000", "#abcdefff", "#7f7f7f80"] {
            #expect(try RGBAColor.parse(text).hex == text)
        }
    }

    @Test func initClampsComponents() {
        let c = RGBAColor(red: 2, green: -1, blue: .nan, alpha: 0.5)
        #expect(c == RGBAColor(red: 1, green: 0, blue: 0, alpha: 0.5))
        #expect(c.withAlpha(3).alpha == 1)
    }

    @Test(arguments: ["", "#", "#12345", "#1234567", "#gg0000", "ff0000", "purple", "0xffffffff", "#ff00zz"])
    func rejectsBadText(text: String) {
        #expect(throws: ColorParseError(text: text)) { try RGBAColor.parse(text) }
    }

    @Test func errorNamesTextAndAcceptedForms() {
        let message = ColorParseError(text: "purple").description
        #expect(message.contains("'purple'"))
        #expect(message.contains("#rrggbb"))
        #expect(message.contains("#rrggbbaa"))
        #expect(message.contains("#rgb"))
        #expect(message.contains("magenta"))
    }
}
