import Foundation
import Testing

@testable import Control

/// PATCH bodies: a JSON object of strings, numbers and booleans, as description text; other values and
/// other bodies refused with what was expected.
struct JSONScalarTests {
    @Test func scalarsBecomeDescriptionText() throws {
        let fields = try JSONScalar.object(Data(#"{"b": true, "a": 3, "c": 0.5, "d": "thirds"}"#.utf8))
        #expect(fields.map(\.0) == ["a", "b", "c", "d"])
        #expect(fields.map { $0.1.text } == ["3", "true", "0.5", "thirds"])
    }

    @Test func nonScalarValuesAreKeptAsOther() throws {
        let fields = try JSONScalar.object(Data(#"{"x": [1], "y": {"z": 1}, "n": null}"#.utf8))
        #expect(fields.allSatisfy { $0.1 == .other && $0.1.text == nil })
    }

    @Test(arguments: ["", "{", "[1, 2]", "\"text\"", "3"])
    func otherBodiesAreRefused(_ body: String) {
        do {
            _ = try JSONScalar.object(Data(body.utf8))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.message.contains("expected a JSON object"), "\(error.message)")
            #expect(error.field == nil)
        }
    }
}
