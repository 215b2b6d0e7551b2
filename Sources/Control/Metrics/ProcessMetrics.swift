import Foundation

/// The process's own figures under Prometheus's standard names (those of its client libraries' process collector):
/// `process_cpu_seconds_total` (user + system time, `/proc/self/stat` fields 14 and 15 over the clock ticks per
/// second), `process_resident_memory_bytes` and `process_virtual_memory_bytes` (`/proc/self/statm` fields 2 and 1,
/// in pages), `process_start_time_seconds` (Unix time: `btime` of `/proc/stat` plus field 22), `process_open_fds`
/// (`/proc/self/fd`) and `process_max_fds` (the soft `RLIMIT_NOFILE`). Linux only; what cannot be read is left out.
public struct ProcessMetrics: Sendable, Equatable {
    /// User and system CPU time so far (s).
    public var cpuSeconds: Double
    /// Resident set size (bytes).
    public var residentBytes: Double
    /// Virtual memory size (bytes).
    public var virtualBytes: Double
    /// When the process started (s since 1970), nil when `/proc/stat` has no `btime`.
    public var startTime: Double?
    /// Descriptors open now, nil when `/proc/self/fd` cannot be listed.
    public var openDescriptors: Int?
    /// The soft descriptor limit, nil when unlimited or unknown.
    public var maxDescriptors: Int?

    /// Reads this process's figures now; nil when `/proc` cannot be read.
    public static func current() -> ProcessMetrics? {
        func read(_ path: String) -> String? {
            (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
        }
        guard let stat = read("/proc/self/stat"), let statm = read("/proc/self/statm") else { return nil }
        var m = parse(
            stat: stat, statm: statm, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Double(sysconf(Int32(_SC_PAGESIZE))),
            bootTime: read("/proc/stat").flatMap(bootTime))
        // Listing the directory takes a descriptor of its own for the time of the listing.
        m?.openDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count).map { Swift.max(0, $0 - 1) }
        var r = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &r) == 0, r.rlim_cur != rlim_t.max {
            m?.maxDescriptors = Int(exactly: r.rlim_cur)
        }
        return m
    }

    /// The figures from the texts of `/proc/self/stat` and `/proc/self/statm`; nil when either is not as Linux
    /// writes it. The command name in `stat` (field 2, in parentheses) may hold spaces and parentheses: the fields
    /// are counted from the last `)`.
    static func parse(stat: String, statm: String, ticksPerSecond: Double, pageSize: Double, bootTime: Double?) -> ProcessMetrics? {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        // Field 3 (state) is the first after the name.
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        let pages = statm.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 20, pages.count >= 2, let utime = Double(fields[11]), let stime = Double(fields[12]),
            let started = Double(fields[19]), let size = Double(pages[0]), let resident = Double(pages[1])
        else { return nil }
        return ProcessMetrics(
            cpuSeconds: (utime + stime) / ticksPerSecond, residentBytes: resident * pageSize, virtualBytes: size * pageSize,
            startTime: bootTime.map { $0 + started / ticksPerSecond })
    }

    /// `btime` (the boot time, s since 1970) of `/proc/stat`'s text.
    static func bootTime(_ procStat: String) -> Double? {
        for line in procStat.split(separator: "\n") where line.hasPrefix("btime ") { return Double(line.dropFirst(6)) }
        return nil
    }

    /// The families, in the order above (unknown ones left out).
    public var families: [PrometheusText.Family] {
        func one(_ name: String, _ help: String, _ kind: PrometheusText.Kind, _ value: Double?) -> PrometheusText.Family? {
            value.map { PrometheusText.Family(name: name, help: help, kind: kind, samples: [.init(value: $0)]) }
        }
        return [
            one("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", .counter, cpuSeconds),
            one("process_resident_memory_bytes", "Resident memory size in bytes.", .gauge, residentBytes),
            one("process_virtual_memory_bytes", "Virtual memory size in bytes.", .gauge, virtualBytes),
            one("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", .gauge, startTime),
            one("process_open_fds", "Number of open file descriptors.", .gauge, openDescriptors.map(Double.init)),
            one("process_max_fds", "Maximum number of open file descriptors.", .gauge, maxDescriptors.map(Double.init)),
        ].compactMap { $0 }
    }
}
