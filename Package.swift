// swift-tools-version:6.1
import PackageDescription

/// Static Foundation inside the plugin: -static-stdlib links the Swift runtime, but a shared library also needs
/// Foundation's own static parts (FrameAnalysis reads cascade XML: FoundationXML, libxml2), in one group since
/// they refer to each other.
let staticFoundation: [String] = (["--start-group"] + [
    "FoundationXML", "_CFXMLInterface", "Foundation", "FoundationInternationalization", "FoundationEssentials",
    "CoreFoundation", "_FoundationCShims", "_FoundationCollections", "_FoundationICU", "swiftSynchronization",
].map { "-l" + $0 } + ["--end-group", "-lxml2"]).flatMap { ["-Xlinker", $0] }

let package = Package(
    name: "Viewfinder",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "viewfinder", targets: ["viewfinder"]),
        .library(name: "Host", targets: ["Host"]),
        .library(name: "Stages", targets: ["Stages"]),
        .library(name: "StageTesting", targets: ["StageTesting"]),
        .library(name: "Overlay", targets: ["Overlay"]),
        .library(name: "FrameAnalysis", targets: ["FrameAnalysis"]),
        .library(name: "GStreamerKit", targets: ["GStreamerKit"]),
        .library(name: "Timing", targets: ["Timing"]),
        // The GStreamer plugin: libgstviewfinder.so (vfgrid, vfcompose, vfcapture, ...) for gst-launch-1.0,
        // gst-inspect-1.0 and any GStreamer application (launch/install-plugin puts it where GStreamer looks).
        .library(name: "gstviewfinder", type: .dynamic, targets: ["ViewfinderPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The control server (`--http`): Hummingbird 2's HTTP/1.1 server core and its WebSocket upgrade, on SwiftNIO.
        // No traits: swift-configuration is not needed (the server is configured in code).
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // C shims: system libraries found by pkg-config, plus static inline wrappers for macros.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0 gstreamer-tag-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        // gst-rtsp-server for `rtspserve` (runtime: gstreamer1.0-rtsp).
        .systemLibrary(name: "CGstRtspServer", pkgConfig: "gstreamer-rtsp-server-1.0 gstreamer-rtsp-1.0 gstreamer-app-1.0",
                       providers: [.apt(["libgstrtspserver-1.0-dev", "gstreamer1.0-rtsp"])]),
        // webrtcbin for `webrtcserve` (runtime: gstreamer1.0-nice, gstreamer1.0-plugins-bad); libnice-dev for the
        // ICE agent's local addresses (loopback: libnice skips loopback interfaces unless told).
        .systemLibrary(name: "CGstWebRTC", pkgConfig: "gstreamer-webrtc-1.0 gstreamer-sdp-1.0 gstreamer-app-1.0 nice",
                       providers: [.apt(["libgstreamer-plugins-bad1.0-dev", "gstreamer1.0-nice", "libnice-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The clock (system and manual) and the one back-off type: no dependencies, used by every module that waits.
        .target(name: "Timing"),
        // The one logger: swift-log Loggers per module (viewfinder.host, .stages, .control, .analysis, .plugin) and
        // `say` for the lines users read; the process picks the backend (the CLI's ConsoleLogHandler, the plugin's
        // GStreamer debug log). swift-log only, so FrameAnalysis (no GStreamer) can use it.
        .target(name: "Diagnostics", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // The only module that touches GStreamer's unsafe pointers (gst-rtsp-server's too: RTSPServer; webrtcbin's:
        // WebRTCServer).
        .target(name: "GStreamerKit", dependencies: ["CGStreamer", "CGstRtspServer", "CGstWebRTC", "Timing"]),
        // Buffer traces (which memories pass a pad: zero-copy proofs) for benches and tests, built on the
        // binding's `watchBuffers` hook; no unsafe pointers here and in no product library. (BufferCopies
        // stays in the binding: Buffer.makeWritable counts there and every run's report prints it.)
        .target(name: "GStreamerTrace", dependencies: ["GStreamerKit"]),
        // The MQTT client (libmosquitto, its own network thread): the only module that touches its pointers.
        .target(name: "Mosquitto", dependencies: ["CMosquitto", "Timing"]),
        // libfacedetection (YuNet) loaded at run time with dlopen: a header-only shim, no link-time dependency
        // (launch/fetch-yuface installs the library; engine=cnn).
        .systemLibrary(name: "CFaceCNN"),
        // OpenCV's HOG people detector (Debian libopencv-objdetect-dev 4.6) behind a C API (engine=people): one
        // .cpp, plain C types across, no exception crosses. Linked (not dlopen'd): opencv is a build dependency.
        .target(
            name: "CPeopleHOG",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        // Pure Swift analysis: images, detectors, saliency, composition rules, guidance. No GStreamer.
        .target(name: "FrameAnalysis", dependencies: ["CFaceCNN", "CPeopleHOG", "Diagnostics"]),
        // cairo/pango drawing of guidance value types into BGRA images.
        .target(name: "Overlay", dependencies: ["CCairo"]),
        // The Stage protocol, property specs and the built-in stages.
        .target(name: "Stages", dependencies: ["GStreamerKit", "Overlay", "FrameAnalysis", "Timing", "Diagnostics"]),
        // Drives stages frame by frame without a pipeline (like gst_check's GstHarness), for tests.
        .target(name: "StageTesting", dependencies: ["Stages", "GStreamerKit", "Timing"]),
        // Description parsing/expansion, segments, bridging, runtime, stats.
        .target(name: "Host", dependencies: ["GStreamerKit", "Stages", "Timing", "Diagnostics"]),
        // The HTTP control API of a running session (`--http`): its own async tasks, off the video threads;
        // and the MQTT bridge (`--mqtt`): events out, commands in, on libmosquitto's thread.
        .target(
            name: "Control",
            dependencies: [
                "Host", "Stages", "GStreamerKit", "Mosquitto", "Timing", "Diagnostics",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"), .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // Side-by-side measurements (`viewfinder bench ...`): linked by the executable, not in any product library.
        .target(name: "ViewfinderBench", dependencies: ["Host", "Stages", "GStreamerKit", "GStreamerTrace", "FrameAnalysis", "Control", "Timing"]),
        // The plugin's GObject side (types, properties, pads, GST_PLUGIN_DEFINE) in C; it calls the Swift side
        // through @_cdecl entry points (viewfinder_plugin.h). Only plain C types cross.
        .target(name: "CViewfinderPlugin", dependencies: ["CGStreamer"]),
        // The plugin's Swift side: each element runs its stage through StageChain, as the host does.
        // -static-stdlib: the Swift runtime and Foundation inside the .so, so stock GStreamer tools load it
        // without the toolchain (--static-swift-stdlib is ignored for dynamic library products).
        .target(
            name: "ViewfinderPlugin", dependencies: ["CViewfinderPlugin", "Stages", "GStreamerKit", "Timing", "Diagnostics"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"] + staticFoundation)]),
        .executableTarget(name: "viewfinder", dependencies: [
            "Host", "Stages", "GStreamerKit", "ViewfinderBench", "Control", "Diagnostics",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // What several test targets share, once (no symlinks): `Tools` (the built binary, ffprobe, free ports),
        // `Broker` (a real mosquitto), `DescriptionGenerator` (seeded descriptions), and TestTags re-exported. A regular
        // target in Tests/, only test targets depend on it; public API of Stages only, so it builds in release too.
        .target(name: "TestSupport", dependencies: ["Stages", "TestTags"], path: "Tests/TestSupport"),
        // The tiers' tags (live, process, browser, network, evaluation), declared once: no dependencies, so every
        // test target can use them (FrameAnalysisTests builds without GStreamer). docs/testing.md.
        .target(name: "TestTags", path: "Tests/TestTags"),
        // Fixtures are read by path (#filePath), with the script that produced them.
        .testTarget(name: "FrameAnalysisTests", dependencies: ["FrameAnalysis", "TestTags"], exclude: ["Fixtures"]),
        .testTarget(name: "HostTests", dependencies: ["Host", "Stages", "TestSupport", "Timing"]),
        .testTarget(name: "OverlayTests", dependencies: ["Overlay"]),
        .testTarget(name: "StagesTests", dependencies: ["Stages", "Host", "StageTesting", "Timing", "TestTags"]),
        .testTarget(name: "StageTestingTests", dependencies: ["StageTesting", "Stages", "GStreamerKit"]),
        .testTarget(name: "GStreamerKitTests", dependencies: ["GStreamerKit", "GStreamerTrace", "TestTags"]),
        .testTarget(name: "ViewfinderTests", dependencies: ["viewfinder", "ViewfinderBench", "TestSupport"]),
        .testTarget(name: "ControlTests", dependencies: ["viewfinder", "Control", "TestSupport", "Timing"]),
        .testTarget(name: "MosquittoTests", dependencies: ["Mosquitto", "TestSupport", "Timing"]),
        .testTarget(name: "TimingTests", dependencies: ["Timing"]),
        .testTarget(
            name: "DiagnosticsTests", dependencies: ["Diagnostics", .product(name: "InMemoryLogging", package: "swift-log")]),
        // Stock gst-launch-1.0 / gst-inspect-1.0 / python3 with the built libgstviewfinder.so (no link to it).
        .testTarget(name: "PluginTests", dependencies: ["Stages", "TestTags"]),
    ]
)
