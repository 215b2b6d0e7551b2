import Testing

/// The suite's tiers (docs/testing.md): each test that is not pure is tagged with what it needs or why it is slow,
/// and `launch/test` picks tiers by tag (`swift test --filter tag:NAME` / `--skip tag:NAME`).
extension Tag {
    /// Real-time pipelines: is-live sources, wall-clock expectations (frames within seconds, timeouts, rates).
    /// Run serially, alone on the machine: CPU-heavy neighbours make them late.
    @Tag public static var live: Self
    /// Spawns processes: the viewfinder binary, gst-launch-1.0, ffmpeg/ffprobe, python3, mosquitto.
    @Tag public static var process: Self
    /// Headless Chromium driven through chromedriver.
    @Tag public static var browser: Self
    /// Servers and clients on loopback: RTSP, SRT, UDP, HLS, MQTT, HTTP, WebRTC.
    @Tag public static var network: Self
    /// Heavy CPU-bound quality evaluations on real photos (recall, false faces, agreement with OpenCV).
    @Tag public static var evaluation: Self
}
