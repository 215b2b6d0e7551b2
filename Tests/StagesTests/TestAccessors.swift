import GStreamerKit
import Stages
import Testing

extension TagList {
    /// The string value of tag `name`, if present.
    func string(_ name: String) -> String? {
        for e in entries where e.tag == name { if case .string(let v) = e.value { return v } }
        return nil
    }
    /// The tag names in order.
    var names: [String] { entries.map(\.tag) }
}

extension MessageStructure {
    /// The value of field `key`, if present.
    func value(_ key: String) -> MessageStructure.Value? { fields.first { $0.0 == key }?.1 }
    /// The integer field `key`.
    func int(_ key: String) -> Int32? { if case .int(let v)? = value(key) { return v }; return nil }
    /// The unsigned 64-bit field `key`.
    func uint64(_ key: String) -> UInt64? { if case .uint64(let v)? = value(key) { return v }; return nil }
    /// The string field `key`.
    func string(_ key: String) -> String? { if case .string(let v)? = value(key) { return v }; return nil }
    /// The boolean field `key`.
    func bool(_ key: String) -> Bool? { if case .bool(let v)? = value(key) { return v }; return nil }
}

/// Byte columns of an 8-bit plane, for checking drawn lines.
extension VideoFrame {
    /// The bytes at `x * bytesPerPixel + channel` of every row of `plane`.
    func column(_ x: Int, plane: Int = 0, bytesPerPixel: Int = 1, channel: Int = 0) throws -> [UInt8] {
        let p = try planeBytes(plane: plane)
        return (0..<p.rows).map { p.bytes[$0 * p.rowBytes + x * bytesPerPixel + channel] }
    }

    /// The bytes at `x * bytesPerPixel + channel` for every x of row `y` of `plane`.
    func row(_ y: Int, plane: Int = 0, bytesPerPixel: Int = 1, channel: Int = 0) throws -> [UInt8] {
        let p = try planeBytes(plane: plane)
        return (0..<info.width).map { p.bytes[y * p.rowBytes + $0 * bytesPerPixel + channel] }
    }
}
