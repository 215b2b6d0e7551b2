import Foundation

// libFuzzer target for the MQTT command payload decoder and the PATCH body decoder (Sources/Control/Decoding,
// Foundation only, so no GStreamer, no FlyingFox). Built and run by `launch/fuzz commands`:
// swiftc -sanitize=fuzzer -parse-as-library Fuzz/CommandsFuzz.swift Sources/Control/Decoding/*.swift.
// Any trap (a failed check below, an overflow, a conversion that does not fit, a stack overflow from nesting) is a
// crash libFuzzer saves; a thrown JSONScalar.Problem is a correct answer.
//
// Besides "no crash", it checks what the decoders promise:
// - every refusal has a non-empty message that says what was expected, and quotes the field it blames;
// - a decoded capture's timer is 0 - 60 and fits Int32 (the custom event's field);
// - a decoded set names a non-empty stage and 1 - fieldLimit properties, sorted and distinct;
// - stop decodes only from an object without fields;
// - a Range header's satisfied range lies inside the file, whatever its size;
// - a clip request names a non-empty element, and only from an object whose one field is `element`;
// - a value's property text is what the property's parser can read: an integer's parses with Int(_:) to the same
//   value, a number's with Double(_:) to a finite value, a boolean's is true or false;
// - nothing is accepted beyond the byte limit or the nesting limit.

private func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { fatalError("CommandsFuzz invariant: " + what()) }
}

private func checkRefusal(_ problem: JSONScalar.Problem, _ data: Data) {
    check(!problem.message.isEmpty, "empty refusal for \(JSONScalar.head(data).debugDescription)")
    check(problem.message.contains("expected"), "refusal without 'expected': \(problem.message)")
    if let field = problem.field {
        check(problem.message.contains("'\(JSONScalar.echo(field))'"), "field '\(field)' not named in: \(problem.message)")
    }
}

/// The property texts of one value, each checked against what a property's parser needs.
private func checkValue(_ value: JSONScalar) {
    check(!value.text.isEmpty || value == .string(""), "empty text for \(value)")
    check(!value.kind.isEmpty, "empty kind for \(value)")
    if let text = value.propertyText(.integer) {
        guard case .int(let i) = value else { return check(false, "integer text from \(value)") }
        check(Int(text) == i, "integer text \(text) does not read back as \(i)")
    }
    if let text = value.propertyText(.number) {
        check(Double(text)?.isFinite == true, "number text \(text) does not read back finite")
    }
    if let text = value.propertyText(.boolean) { check(text == "true" || text == "false", "boolean text \(text)") }
    if let text = value.propertyText(.string) {
        guard case .string(let s) = value else { return check(false, "string text from \(value)") }
        check(text == s, "string text changed")
    }
}

private func exercise(_ data: Data) {
    let tooBig = data.count > JSONScalar.byteLimit
    let tooDeep = JSONScalar.nesting(data) > JSONScalar.depthLimit

    // As a PATCH body.
    do {
        let fields = try JSONScalar.object(data)
        check(!tooBig && !tooDeep, "accepted \(data.count) bytes nested \(JSONScalar.nesting(data)) deep")
        check(fields.count <= JSONScalar.fieldLimit, "\(fields.count) fields accepted")
        check(zip(fields, fields.dropFirst()).allSatisfy { $0.0 < $1.0 }, "fields not sorted and distinct")
        for (_, value) in fields { checkValue(value) }
        if let timer = try? MQTTCommand.captureTimer(fields) {
            check((0...60).contains(timer) && Int32(exactly: timer) != nil, "capture timer \(timer)")
        }
        // As a clip request (`POST /api/clips`, `cmd/clip`): nil or a non-empty name, and only from `element`.
        do {
            if let element = try MQTTCommand.clipElement(fields) {
                check(!element.isEmpty && fields.count == 1 && fields[0].0 == "element", "clip element from \(fields.map(\.0))")
            } else {
                check(fields.isEmpty, "no clip element from \(fields.map(\.0))")
            }
        } catch {
            checkRefusal(error, data)
        }
    } catch {
        checkRefusal(error, data)
    }

    // As a Range header, against a few file sizes: a satisfied range lies inside the file.
    if let header = String(data: data, encoding: .utf8) {
        for size: Int64 in [0, 1, 100, 8 << 20, Int64.max] {
            if case .success(let r)? = HTTPRange.parse(header, size: size) {
                check(r.lowerBound >= 0 && r.upperBound < size && r.lowerBound <= r.upperBound, "range \(r) of \(size) bytes from \(header.debugDescription)")
            }
        }
    }

    // As each command's payload (a service's command too).
    for name in ["capture", "set", "stop", "tally", "nope"] {
        do {
            let command = try MQTTCommand.decode(name, payload: data, services: ["tally"], prefix: "cams/door/cmd/")
            check(!tooBig && !tooDeep, "\(name) accepted \(data.count) bytes nested \(JSONScalar.nesting(data)) deep")
            switch command {
            case .capture(let timer):
                check(name == "capture", "\(name) decoded as capture")
                if let timer { check((0...60).contains(timer) && Int32(exactly: timer) != nil, "capture timer \(timer)") }
            case .set(let stage, let fields):
                check(name == "set", "\(name) decoded as set")
                check(!stage.isEmpty, "empty stage")
                check((1...JSONScalar.fieldLimit).contains(fields.count), "\(fields.count) properties")
                check(zip(fields, fields.dropFirst()).allSatisfy { $0.name < $1.name }, "properties not sorted and distinct")
                for f in fields { checkValue(f.value) }
            case .stop:
                check(name == "stop", "\(name) decoded as stop")
                check((try? JSONScalar.object(data))?.isEmpty == true, "stop from a payload with fields")
            case .service(let s):
                check(name == "tally" && s == "tally", "\(name) decoded as service \(s)")
            }
        } catch {
            checkRefusal(error, data)
            if name == "nope" { check(error.message.hasPrefix("unknown command topic"), "nope: \(error.message)") }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    exercise(Data(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
