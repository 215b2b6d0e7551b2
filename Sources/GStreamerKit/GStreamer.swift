import CGStreamer

/// Process-wide GStreamer set-up and small shared helpers.
public enum GStreamer {
    /// Initialises GStreamer once; safe to call from any thread, any number of times.
    public static func initialize() {
        _ = initOnce
    }
    private static let initOnce: Void = {
        gst_init(nil, nil)
    }()

    /// True when an element factory of that name is registered (a plugin provides it).
    public static func hasElementFactory(_ name: String) -> Bool {
        initialize()
        guard let f = gst_element_factory_find(name) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(f))
        return true
    }
}

/// A GStreamer timestamp or duration in nanoseconds; `nil` stands for GST_CLOCK_TIME_NONE.
public typealias ClockTime = UInt64?

extension Optional where Wrapped == UInt64 {
    /// Converts to GStreamer's encoding (GST_CLOCK_TIME_NONE for nil).
    @inlinable var gstValue: UInt64 { self ?? UInt64.max }
}

@inline(__always) func clockTime(_ raw: UInt64) -> ClockTime { raw == UInt64(vf_clock_time_none()) ? nil : raw }

/// Errors raised by the binding. Each names the element or token concerned.
public struct GStreamerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Which part of GStreamer failed, like GStreamer's own error domains.
    public enum Domain: String, Sendable { case core, library, resource, stream, parse }
    /// The domain.
    public var domain: Domain
    /// A full human message.
    public var message: String
    /// Creates an error.
    public init(_ domain: Domain, _ message: String) { self.domain = domain; self.message = message }
    /// The message.
    public var description: String { message }
}

func takeError(_ err: UnsafeMutablePointer<GError>?) -> String {
    guard let err else { return "unknown error" }
    defer { g_error_free(err) }
    return err.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
