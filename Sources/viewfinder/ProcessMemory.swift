import Foundation
import GStreamerKit

/// A viewfinder process has many threads that allocate (per camera: a stage group's worker, compose's analysis
/// thread, streaming threads, an encoder's threads), and glibc gave them up to 8 malloc arenas per core, each
/// keeping what its threads freed: `bench cameras 7` measured 37.4-40.6 MB per further camera with the default and
/// 35.4 MB with two arenas, at the same fps and analysis rate. So the CLI caps them at one per core (at least two)
/// before any thread starts; `MALLOC_ARENA_MAX` set by the user wins. Inside the GStreamer plugin the application
/// owns malloc: this is the CLI's choice only.
enum ProcessMemory {
    static func limitArenas() {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        MallocArenas.limit(to: max(2, ProcessInfo.processInfo.activeProcessorCount))
    }
}
