import Foundation
import GStreamerKit
import Stages

// The Swift entry points of the `viewfinder` GStreamer plugin, called by its C half
// (Sources/CViewfinderPlugin/plugin.c; declarations and ownership rules in viewfinder_plugin.h).
//
// This is the plugin's one binding file: raw pointers arrive here and go straight to GStreamerKit
// (`Buffer.adopting`, `Caps.borrowing`, `Segment(copying:)`, `PluginElement(borrowing:)`), element
// instances travel as retained `Unmanaged` references, and strings handed to C are either kept for the
// life of the process (descriptors, made once) or malloc'd for the caller to free (errors).

/// C strings of the descriptors, made once and kept (plugin types live as long as the process).
private final class CStrings: @unchecked Sendable {
    static let shared = CStrings()
    private let lock = NSLock()
    private var kept: [String: UnsafeMutablePointer<CChar>] = [:]
    func get(_ s: String) -> UnsafePointer<CChar>? {
        lock.withLock {
            if let p = kept[s] { return UnsafePointer(p) }
            guard let p = strdup(s) else { return nil }
            kept[s] = p
            return UnsafePointer(p)
        }
    }
}

private func entry(_ stage: Int32) -> PluginCatalog.Entry? {
    let all = PluginCatalog.entries
    return all.indices.contains(Int(stage)) ? all[Int(stage)] : nil
}

private func property(_ stage: Int32, _ index: Int32) -> PluginCatalog.Property? {
    guard let e = entry(stage), e.properties.indices.contains(Int(index)) else { return nil }
    return e.properties[Int(index)]
}

private func text(_ s: String?) -> UnsafePointer<CChar>? { CStrings.shared.get(s ?? "") }

private func instance(_ raw: UnsafeMutableRawPointer) -> PluginInstance {
    Unmanaged<PluginInstance>.fromOpaque(raw).takeUnretainedValue()
}

private func errorText(_ message: String?) -> UnsafeMutablePointer<CChar>? { message.flatMap { strdup($0) } }

@_cdecl("vfsw_stage_count") public func vfswStageCount() -> Int32 { Int32(PluginCatalog.entries.count) }
@_cdecl("vfsw_stage_kind") public func vfswStageKind(_ stage: Int32) -> UnsafePointer<CChar>? { text(entry(stage)?.descriptor.kind) }
@_cdecl("vfsw_stage_blurb") public func vfswStageBlurb(_ stage: Int32) -> UnsafePointer<CChar>? {
    text(entry(stage)?.descriptor.blurb)
}
@_cdecl("vfsw_stage_caps") public func vfswStageCaps(_ stage: Int32) -> UnsafePointer<CChar>? { text(entry(stage)?.caps ?? "video/x-raw") }
@_cdecl("vfsw_stage_resizes") public func vfswStageResizes(_ stage: Int32) -> Int32 { entry(stage)?.resizes == true ? 1 : 0 }
@_cdecl("vfsw_output_count") public func vfswOutputCount(_ stage: Int32) -> Int32 { Int32(entry(stage)?.descriptor.outputs.count ?? 0) }
@_cdecl("vfsw_output_name") public func vfswOutputName(_ stage: Int32, _ output: Int32) -> UnsafePointer<CChar>? {
    guard let o = entry(stage)?.descriptor.outputs, o.indices.contains(Int(output)) else { return text(nil) }
    return text(o[Int(output)].name)
}
@_cdecl("vfsw_output_blurb") public func vfswOutputBlurb(_ stage: Int32, _ output: Int32) -> UnsafePointer<CChar>? {
    guard let o = entry(stage)?.descriptor.outputs, o.indices.contains(Int(output)) else { return text(nil) }
    return text(o[Int(output)].blurb)
}
@_cdecl("vfsw_property_count") public func vfswPropertyCount(_ stage: Int32) -> Int32 { Int32(entry(stage)?.properties.count ?? 0) }
@_cdecl("vfsw_property_name") public func vfswPropertyName(_ stage: Int32, _ index: Int32) -> UnsafePointer<CChar>? {
    text(property(stage, index)?.spec.name)
}
@_cdecl("vfsw_property_blurb") public func vfswPropertyBlurb(_ stage: Int32, _ index: Int32) -> UnsafePointer<CChar>? {
    text(property(stage, index)?.blurb)
}
@_cdecl("vfsw_property_type") public func vfswPropertyType(_ stage: Int32, _ index: Int32) -> Int32 {
    property(stage, index)?.kind.rawValue ?? PluginCatalog.Property.Kind.string.rawValue
}
@_cdecl("vfsw_property_min") public func vfswPropertyMin(_ stage: Int32, _ index: Int32) -> Double { property(stage, index)?.min ?? 0 }
@_cdecl("vfsw_property_max") public func vfswPropertyMax(_ stage: Int32, _ index: Int32) -> Double { property(stage, index)?.max ?? 0 }
@_cdecl("vfsw_property_default") public func vfswPropertyDefault(_ stage: Int32, _ index: Int32) -> UnsafePointer<CChar>? {
    text(property(stage, index)?.defaultText)
}
@_cdecl("vfsw_property_choices") public func vfswPropertyChoices(_ stage: Int32, _ index: Int32) -> UnsafePointer<CChar>? {
    text(property(stage, index)?.choices)
}
@_cdecl("vfsw_property_playing") public func vfswPropertyPlaying(_ stage: Int32, _ index: Int32) -> Int32 {
    property(stage, index)?.spec.mutability == .playing ? 1 : 0
}

@_cdecl("vfsw_instance_new") public func vfswInstanceNew(_ stage: Int32) -> UnsafeMutableRawPointer? {
    guard let e = entry(stage) else { return nil }
    return Unmanaged.passRetained(PluginInstance(entry: e)).toOpaque()
}

@_cdecl("vfsw_instance_free") public func vfswInstanceFree(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    Unmanaged<PluginInstance>.fromOpaque(raw).release()
}

@_cdecl("vfsw_set_property")
public func vfswSetProperty(
    _ raw: UnsafeMutableRawPointer?, _ element: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> UnsafeMutablePointer<CChar>? {
    guard let raw, let name else { return errorText("no element or property name") }
    let label = element.map { String(cString: $0) }
    return errorText(instance(raw).set(String(cString: name), value.map { String(cString: $0) } ?? "", element: label))
}

@_cdecl("vfsw_start")
public func vfswStart(_ raw: UnsafeMutableRawPointer?, _ element: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    guard let raw, let element else { return errorText("no element") }
    return errorText(instance(raw).start(PluginElement(borrowing: element)))
}

@_cdecl("vfsw_stop") public func vfswStop(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    instance(raw).stop()
}

@_cdecl("vfsw_process")
public func vfswProcess(
    _ raw: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ caps: UnsafeMutableRawPointer?,
    _ segment: UnsafeMutableRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    guard let raw, let buffer, let frame = buffer.pointee, let caps, let segment else { return errorText("no frame") }
    let (out, problem) = instance(raw).process(Buffer.adopting(frame), caps: Caps.borrowing(caps), segment: Segment(copying: segment))
    buffer.pointee = out.release()
    return errorText(problem)
}

@_cdecl("vfsw_output_size")
public func vfswOutputSize(
    _ raw: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ inWidth: Int32, _ inHeight: Int32,
    _ outWidth: UnsafeMutablePointer<Int32>?, _ outHeight: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let raw, let outWidth, let outHeight else { return 0 }
    guard
        let size = instance(raw).outputSize(
            format: format.map { String(cString: $0) }, width: Int(inWidth), height: Int(inHeight)),
        let w = Int32(exactly: size.width), let h = Int32(exactly: size.height)
    else { return 0 }
    outWidth.pointee = w
    outHeight.pointee = h
    return 1
}

@_cdecl("vfsw_custom_event") public func vfswCustomEvent(_ raw: UnsafeMutableRawPointer?, _ structure: UnsafePointer<CChar>?) {
    guard let raw, let structure else { return }
    instance(raw).customEvent(String(cString: structure))
}

@_cdecl("vfsw_end_of_stream") public func vfswEndOfStream(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    instance(raw).endOfStream()
}
