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
}
