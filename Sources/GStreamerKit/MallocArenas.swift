import CGStreamer

/// glibc malloc's arenas (`mallopt(M_ARENA_MAX)`): a thread that finds every arena in use gets a new one, up to 8
/// per core, and each arena keeps what its threads freed.
public enum MallocArenas {
    /// At most `arenas` arenas from now on (call it before threads start); false when glibc refused.
    @discardableResult
    public static func limit(to arenas: Int) -> Bool { vf_malloc_arena_max(Int32(clamping: max(1, arenas))) == 1 }
}
