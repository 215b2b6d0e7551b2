import Testing

@testable import Host

/// Display sinks are refused before anything runs when there is no display to show them on.
struct DisplayCheckTests {
    static func env(display: String? = nil, wayland: String? = nil, drm: Bool = false, xOpens: Bool = false) -> DisplayCheck.Environment {
        DisplayCheck.Environment(display: display, waylandSocket: wayland, hasDRM: drm, xOpens: { _ in xOpens })
    }

    static func error(_ elements: [(name: String, factory: String)], _ env: DisplayCheck.Environment, withVideoSink: Set<String> = [])
        -> String?
    {
        do { try DisplayCheck.check(elements: elements, withVideoSink: withVideoSink, environment: env); return nil } catch {
            return error.message
        }
    }

    @Test func autovideosinkWithoutDisplayNamesTheFixes() {
        let m = Self.error([("videotestsrc0", "videotestsrc"), ("autovideosink0", "autovideosink")], Self.env())
        #expect(
            m
                == "autovideosink: no display (DISPLAY is not set): use fakesink, or encode to a file (videoconvert ! x264enc ! mp4mux ! filesink location=out.mp4), or run under Xvfb (xvfb-run -a viewfinder ...)"
        )
    }

    @Test func anUnreachableXDisplayIsNamed() {
        let m = Self.error([("win", "ximagesink")], Self.env(display: ":77"))
        #expect(m?.hasPrefix("win (ximagesink): cannot open the X display ':77': use fakesink") == true, "\(m ?? "")")
    }

    @Test func aWorkingDisplayOrKMSPasses() {
        #expect(Self.error([("autovideosink0", "autovideosink")], Self.env(display: ":0", xOpens: true)) == nil)
        #expect(Self.error([("autovideosink0", "autovideosink")], Self.env(drm: true)) == nil)
        #expect(Self.error([("fakesink0", "fakesink")], Self.env()) == nil)
    }

    @Test func wrappersNeedADisplayOnlyWithoutVideoSink() {
        #expect(Self.error([("fpsdisplaysink0", "fpsdisplaysink")], Self.env())?.hasPrefix("fpsdisplaysink: no display") == true)
        #expect(Self.error([("fpsdisplaysink0", "fpsdisplaysink")], Self.env(), withVideoSink: ["fpsdisplaysink"]) == nil)
        #expect(Self.error([("playbin0", "playbin")], Self.env())?.hasPrefix("playbin: no display") == true)
    }

    @Test func xvimagesinkOnAnXServerWithoutXVideo() {
        let env = DisplayCheck.Environment(display: ":93", waylandSocket: nil, hasDRM: false, xOpens: { $0 == "ximagesink" })
        #expect(
            Self.error([("xvimagesink0", "xvimagesink")], env)
                == "xvimagesink: the X display ':93' has no XVideo adaptor (Xvfb has none): use ximagesink or autovideosink instead")
    }

    @Test func waylandsinkNeedsWayland() {
        #expect(
            Self.error([("waylandsink0", "waylandsink")], Self.env(display: ":0", xOpens: true))?.hasPrefix(
                "waylandsink: no Wayland display (WAYLAND_DISPLAY is not set)") == true)
        #expect(
            Self.error([("waylandsink0", "waylandsink")], Self.env(wayland: "/nonexistent/wayland-0"))?.hasPrefix(
                "waylandsink: cannot reach the Wayland display '/nonexistent/wayland-0'") == true)
    }
}
