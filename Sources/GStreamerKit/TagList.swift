import CGStreamer
import Foundation

/// Stream tags (GstTagList) built from Swift values, sent down an output as a TAG event so
/// muxers such as jifmux write them (EXIF) — no hand-written metadata.
public struct TagList: Sendable {
    /// One tag value.
    public enum Value: Sendable {
        /// A string tag (`description`, `application-name`, `title`...).
        case string(String)
        /// An unsigned integer tag (`image-orientation` is a string; counts are uint).
        case uint(UInt32)
        /// A double tag.
        case double(Double)
        /// A date-time tag stored as a GstDateTime (EXIF DateTimeOriginal needs that, not a string).
        case dateTime(Date)
    }
    /// Tags in order (GStreamer names: `description`, `datetime`, `application-name`...).
    public var entries: [(tag: String, value: Value)]
    /// Creates a tag list.
    public init(_ entries: [(tag: String, value: Value)] = []) { self.entries = entries }

    /// GStreamer's name of the description tag (EXIF ImageDescription).
    public static let description = "description"
    /// GStreamer's name of the date-time tag (EXIF DateTimeOriginal).
    public static let dateTime = "datetime"
    /// GStreamer's name of the application tag (EXIF Software).
    public static let applicationName = "application-name"
    /// GStreamer's name of the orientation tag (EXIF Orientation), e.g. "rotate-0".
    public static let imageOrientation = "image-orientation"

    func makeRaw() -> UnsafeMutablePointer<GstTagList> {
        GStreamer.initialize()
        let l = gst_tag_list_new_empty()!
        for (tag, v) in entries {
            switch v {
            case .string(let s): vf_tag_list_add_string(l, tag, s)
            case .uint(let u): vf_tag_list_add_uint(l, tag, guint(u))
            case .double(let d): vf_tag_list_add_double(l, tag, d)
            case .dateTime(let date): vf_tag_list_add_datetime_unix_usecs(l, tag, gint64(date.timeIntervalSince1970 * 1e6))
            }
        }
        return l
    }
}

extension Element {
    /// Sends a TAG event; a source (appsrc) puts it into its data flow before its next buffer.
    @discardableResult public func sendTags(_ tags: TagList) -> Bool {
        gst_element_send_event(raw, gst_event_new_tag(tags.makeRaw())) != 0
    }

    /// For tag setters (jifmux, muxers): let each new TAG event replace earlier values instead of
    /// keeping the first ones. Returns false for elements that are not tag setters.
    @discardableResult public func replaceTagsOnEachEvent() -> Bool { vf_tag_setter_replace(raw) != 0 }

    /// Sends a custom downstream event carrying `structure` (name and fields), serialized with data.
    @discardableResult public func sendCustomEvent(_ structure: MessageStructure) -> Bool {
        gst_element_send_event(raw, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, structure.makeRaw())) != 0
    }
}
