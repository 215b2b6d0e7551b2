import CPeopleHOG

/// The Swift side of the `CPeopleHOG` shim (OpenCV's HOG people detector): the one file of FrameAnalysis that
/// calls it. The pixels and the result array are Swift arrays passed by implicit bridging for the call's
/// duration only; the shim keeps no pointer, hands back no allocation and lets no C++ exception out.
enum PeopleHOG {
    /// One raw window group from OpenCV, in the searched image's pixels (before any upscale).
    struct Hit: Sendable, Equatable {
        var x: Int, y: Int, width: Int, height: Int
        /// The SVM score (0 is the decision threshold).
        var weight: Double
    }

    /// The shim failed: its code (`VF_HOG_*`) and OpenCV's message.
    struct Failure: Error, CustomStringConvertible, Sendable {
        var code: Int
        var message: String
        var description: String { "OpenCV HOG people detector failed (\(code)): \(message)" }
    }

    /// Most windows read from one call.
    static let capacity = 128
    /// Most raw (ungrouped) windows read from one slice of a search.
    static let windowCapacity = 4096

    /// The detector window, 64 x 128.
    static var window: (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        vf_hog_window(&w, &h)
        return (Int(w), Int(h))
    }

    /// Runs `detectMultiScale` on packed 8-bit pixels (`channels` 1 or 3, rows `width * channels` bytes).
    static func detect(
        pixels: [UInt8], width: Int, height: Int, channels: Int, hitThreshold: Double, winStride: Int, padding: Int,
        scale: Double, groupThreshold: Int, upscale: Double
    ) -> Result<[Hit], Failure> {
        var params = vf_hog_params(
            hit_threshold: hitThreshold, win_stride: Int32(winStride), padding: Int32(padding), scale: scale,
            group_threshold: Int32(groupThreshold), upscale: upscale)
        var out = [vf_hog_box](repeating: vf_hog_box(), count: capacity)
        var message = [CChar](repeating: 0, count: 512)
        let n = Int(
            vf_hog_detect_people(
                pixels, Int32(width), Int32(height), Int32(width * channels), Int32(channels), &params, &out, Int32(capacity),
                &message, Int32(message.count)))
        guard n >= 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(Failure(code: n, message: text))
        }
        return .success(
            out.prefix(n).map { Hit(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height), weight: $0.weight) })
    }

    /// The pyramid levels `detectMultiScale` searches a `width` x `height` image at, after `upscale`.
    static func levels(width: Int, height: Int, scale: Double, upscale: Double) -> Int {
        var params = vf_hog_params(hit_threshold: 0, win_stride: 8, padding: 0, scale: scale, group_threshold: 0, upscale: upscale)
        return max(0, Int(vf_hog_levels(Int32(width), Int32(height), &params)))
    }

    /// The raw windows (ungrouped, in the searched image's pixels: after `upscale`) of pyramid levels `levels`.
    static func windows(
        pixels: [UInt8], width: Int, height: Int, channels: Int, hitThreshold: Double, winStride: Int, padding: Int,
        scale: Double, upscale: Double, levels: Range<Int>
    ) -> Result<[SearchWindow], Failure> {
        var params = vf_hog_params(
            hit_threshold: hitThreshold, win_stride: Int32(winStride), padding: Int32(padding), scale: scale, group_threshold: 0,
            upscale: upscale)
        var out = [vf_hog_box](repeating: vf_hog_box(), count: windowCapacity)
        var message = [CChar](repeating: 0, count: 512)
        let n = Int(
            vf_hog_detect_levels(
                pixels, Int32(width), Int32(height), Int32(width * channels), Int32(channels), &params, Int32(levels.lowerBound),
                Int32(levels.count), &out, Int32(windowCapacity), &message, Int32(message.count)))
        guard n >= 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(Failure(code: n, message: text))
        }
        return .success(
            out.prefix(n).map { SearchWindow(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height), weight: $0.weight) })
    }

    /// Groups raw windows of an image searched at `upscale` as `detectMultiScale` does: hits in the image's pixels,
    /// strongest first.
    static func group(_ windows: [SearchWindow], groupThreshold: Int, upscale: Double) -> [Hit] {
        let raw = windows.map { vf_hog_box(x: Int32($0.x), y: Int32($0.y), width: Int32($0.width), height: Int32($0.height), weight: $0.weight) }
        var out = [vf_hog_box](repeating: vf_hog_box(), count: capacity)
        let n = Int(
            vf_hog_group(
                raw, Int32(raw.count), Int32(groupThreshold), upscale, &out, Int32(capacity)))
        return out.prefix(max(0, n)).map { Hit(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height), weight: $0.weight) }
    }
}
