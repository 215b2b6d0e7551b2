/// An engine that returns detections made elsewhere (e.g. GStreamer's `facedetect` element upstream),
/// already in the analysed image's pixels.
public struct FixedDetections: DetectionEngine {
    /// Engine name (`upstream`).
    public let name: String
    /// What `detect` returns.
    public let detections: [Detection]
    /// Creates the engine.
    public init(name: String = "upstream", detections: [Detection]) { self.name = name; self.detections = detections }
    /// The given detections, whatever the image.
    public func detect(in image: RGBImage) -> [Detection] { detections }
}
