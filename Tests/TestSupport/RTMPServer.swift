import Foundation

/// A private RTMP server for one test: Debian's `nginx` with `libnginx-mod-rtmp`, on a free loopback port, with its
/// configuration, pid file and log in a temporary directory (never the system's nginx, never port 80). Streams are
/// published to and played from `rtmp://127.0.0.1:PORT/live/NAME`. Tests stop it with `defer` (`ServerProcess`).
public final class RTMPServer: ServerProcess {
    /// Where Debian's libnginx-mod-rtmp puts the module (`dpkg -L libnginx-mod-rtmp`).
    public static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"

    /// Starts `/usr/sbin/nginx -p DIR -c DIR/nginx.conf -e DIR/error.log` in the foreground (`daemon off`) as one
    /// process (`master_process off`, so SIGKILL ends all of it), with one application `live` (`live on`, nothing
    /// recorded) listening on 127.0.0.1:`port` (a free one when nil), and waits until the port accepts
    /// connections (at most 10 s). `wait_key on` and `wait_video on`: a player joining a stream gets video from its
    /// next keyframe, and audio only from then, so every video frame it receives decodes.
    public init(port: UInt16? = nil) throws {
        try super.init(name: "rtmp", port: port, logNames: ["nginx.out", "error.log"])
        let conf = dir.appendingPathComponent("nginx.conf")
        let text = """
            load_module \(Self.module);
            daemon off;
            master_process off;
            pid \(dir.path)/nginx.pid;
            error_log \(dir.path)/error.log info;
            events {}
            rtmp {
                server {
                    listen 127.0.0.1:\(self.port);
                    application live { live on; record off; wait_key on; wait_video on; }
                }
            }

            """
        try Data(text.utf8).write(to: conf)
        try start("/usr/sbin/nginx", ["-p", dir.path + "/", "-c", conf.path, "-e", dir.appendingPathComponent("error.log").path])
    }

    /// The URL of stream `name` in the application `live`.
    public func url(_ name: String = "stream") -> String { "rtmp://127.0.0.1:\(port)/live/\(name)" }

    /// Waits until a client publishes stream `name` (its `publish: name='NAME'` line in the log), at most `timeout` s;
    /// whether one did.
    public func waitForPublisher(_ name: String = "stream", timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if log.contains("publish: name='\(name)'") { return true }
            usleep(50_000)
        } while Date() < deadline && process.isRunning
        return log.contains("publish: name='\(name)'")
    }

    /// Plays stream `name` with ffmpeg and copies `seconds` of it (audio and video as sent, no decoding) into the FLV
    /// file `file`. `-rw_timeout` (3 s without data ends it): nginx keeps a player connected after its publisher
    /// leaves, so a reader without it may never end.
    public func record(_ name: String = "stream", seconds: Double, to file: String, timeout: Double = 30) throws -> Tools.Result {
        try Tools.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-rw_timeout", "3000000", "-i", url(name), "-c", "copy", "-t", String(seconds), "-y", file],
            timeout: timeout)
    }
}
