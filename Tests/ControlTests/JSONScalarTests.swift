import Foundation
import Testing

@testable import Control

/// PATCH bodies: a JSON object of strings, numbers and booleans; other values kept by kind and other bodies
/// refused with what was expected. No number traps: beyond Int it is a Double, beyond Double `.hugeNumber`.
struct JSONScalarTests {
    @Test func scalarsKeepTheirJSONType() throws {
        let fields = try JSONScalar.object(Data(#"{"b": true, "a": 3, "c": 0.5, "d": "thirds", "e": "5"}"#.utf8))
        #expect(fields.map(\.0) == ["a", "b", "c", "d", "e"])
        #expect(fields.map(\.1) == [.int(3), .bool(true), .double(0.5), .string("thirds"), .string("5")])
        #expect(fields.map { $0.1.text } == ["3", "true", "0.5", "thirds", "5"])
        #expect(fields.map { $0.1.kind } == ["a number", "a boolean", "a number", "a string", "a string"])
    }

    @Test func nonScalarValuesAreKeptByKind() throws {
        let fields = try JSONScalar.object(Data(#"{"x": [1], "y": {"z": 1}, "n": null}"#.utf8))
        #expect(fields.map(\.0) == ["n", "x", "y"])
        #expect(fields.map(\.1) == [.other("null"), .other("an array"), .other("an object")])
        #expect(fields.map { $0.1.kind } == ["null", "an array", "an object"])
    }

    /// A whole number literal is an `.int` (2.0 too, as JSON does not tell them apart); one beyond `Int` is a
    /// `.double`; one beyond `Double`, either sign, is `.hugeNumber`; a tiny one underflows to 0.
    @Test func largeAndSmallNumbersDecodeWithoutTrapping() throws {
        let body =
            #"{"a": 99999999999999999999, "b": 1e400, "c": -1e400, "d": 9223372036854775807, "e": 9223372036854775808, "f": 2.0, "g": 1e-400, "h": -2.5}"#
        let fields = try JSONScalar.object(Data(body.utf8))
        #expect(
            fields.map(\.1) == [
                .double(1e20), .hugeNumber, .hugeNumber, .int(Int.max), .double(9_223_372_036_854_775_808), .int(2), .int(0), .double(-2.5),
            ])
        #expect(fields[0].1.text == "1e+20")
        #expect(fields[1].1.text == "a number too large to represent")
        #expect(fields[4].1.text == "9.223372036854776e+18")
        // Just below Int.min decodes as -2^63 exactly: its text must not take Int's abs (a trap; launch/fuzz found it).
        let low = try JSONScalar.object(Data(#"{"a": -9223372036854775809}"#.utf8))
        #expect(low.map(\.1) == [.double(-9_223_372_036_854_775_808)])
        #expect(low[0].1.text == "-9.223372036854776e+18")
    }

    @Test(arguments: ["", "{", "[1, 2]", "\"text\"", "3", "{\"a\": 1e400"])
    func otherBodiesAreRefused(_ body: String) {
        do {
            _ = try JSONScalar.object(Data(body.utf8))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.message.contains("expected a JSON object"), "\(error.message)")
            #expect(error.field == nil)
        }
    }

    /// A value's text for a property's parser: only its own JSON type, integers exactly, numbers finite.
    @Test func propertyTextTakesOnlyTheRightType() {
        #expect(JSONScalar.int(4_294_967_296).propertyText(.integer) == "4294967296")
        #expect(JSONScalar.double(1e20).propertyText(.integer) == nil)
        #expect(JSONScalar.double(2.5).propertyText(.integer) == nil)
        #expect(JSONScalar.double(-0.0).propertyText(.number) == "-0.0")
        #expect(JSONScalar.hugeNumber.propertyText(.number) == nil)
        #expect(JSONScalar.string("5").propertyText(.number) == nil)
        #expect(JSONScalar.int(1).propertyText(.boolean) == nil)
        #expect(JSONScalar.bool(false).propertyText(.boolean) == "false")
        #expect(JSONScalar.bool(true).propertyText(.string) == nil)
        #expect(JSONScalar.other("an array").propertyText(.string) == nil)
    }

    /// Limits before decoding (bytes, nesting) and after (fields); nesting is counted outside strings only.
    @Test func limitsHoldBeforeDecoding() {
        func message(_ body: String) -> String? {
            do {
                _ = try JSONScalar.object(Data(body.utf8))
                return nil
            } catch { return error.message }
        }
        #expect(JSONScalar.nesting(Data(#"{"a": "[[[[{{{{", "b": [[1]], "c": "\"[["}"#.utf8)) == 3)
        #expect(message("{\"a\":" + String(repeating: "[", count: 100_000) + "}")?.hasPrefix("body of 100006 bytes refused: at most 65536") == true)
        #expect(message("{\"a\":" + String(repeating: "{\"b\":", count: 40) + "1" + String(repeating: "}", count: 41))?
            .hasPrefix("JSON nested 17 levels deep refused: at most 16, expected a JSON object") == true)
        #expect(message("{" + (0..<257).map { "\"p\($0)\":1" }.joined(separator: ",") + "}") == "object of 257 fields refused: at most 256, expected a JSON object {\"property\": value, ...}")
        #expect(message("{" + (0..<256).map { "\"p\($0)\":1" }.joined(separator: ",") + "}") == nil)
    }
}
