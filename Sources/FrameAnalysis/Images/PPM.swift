/// Binary PPM (P6, maxval 255), the format `launch/testdata` converts the real photos to, so pure-Swift code (tests,
/// `bench faces`) reads them without an image library.
extension RGBImage {
    /// What is wrong with a PPM file.
    public struct PPMError: Error, CustomStringConvertible, Sendable {
        /// The problem, naming what was expected.
        public var description: String
    }

    /// Parses a binary P6 PPM with maxval 255 (comments allowed in the header).
    /// - Throws: `PPMError` naming the bad header field or the short pixel data.
    public init(ppm bytes: [UInt8]) throws(PPMError) {
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "6") else {
            throw PPMError(description: "not a binary PPM: expected the magic 'P6'")
        }
        var fields: [Int] = [], i = 2
        while fields.count < 3 {
            while i < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[i]) { i += 1 }
            guard i < bytes.count else { throw PPMError(description: "PPM header ends early: expected width, height and maxval") }
            if bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 0x0a { i += 1 }
                continue
            }
            var v = 0, digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 9 { v = v * 10 + Int(bytes[i] - 0x30); i += 1; digits += 1 }
            guard digits > 0 else { throw PPMError(description: "PPM header: expected a number at byte \(i)") }
            fields.append(v)
        }
        let (w, h) = (fields[0], fields[1])
        guard w > 0, h > 0, fields[2] == 255 else {
            throw PPMError(description: "PPM header: expected a positive size and maxval 255, got \(w)x\(h) maxval \(fields[2])")
        }
        i += 1  // the single whitespace after maxval
        guard bytes.count - i >= w * h * 3 else {
            throw PPMError(description: "PPM data: expected \(w * h * 3) bytes of pixels for \(w)x\(h), found \(max(0, bytes.count - i))")
        }
        self.init(width: w, height: h, pixels: Array(bytes[i..<(i + w * h * 3)]))
    }
}
