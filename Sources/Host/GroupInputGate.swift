import GStreamerKit

/// Decides over every frame reaching a stage group before its stages see it: a service's hook into the worker
/// (source recovery drops live frames that arrive behind the placeholders that stood in for them, and fills the
/// hole before a live frame that comes back further on). Called on the group's worker only; must not block.
protocol GroupInputGate: AnyObject, Sendable {
    /// The buffers to run through the stages for this arrival, in order (the arrival itself among them, or not),
    /// and how many were dropped for arriving behind.
    func admit(_ buffer: Buffer, caps: Caps?, segment: Segment) -> (buffers: [Buffer], behind: Int)
}
