import Stages

/// A stage kind that can listen to a `Triggers` instance other than the process-wide one
/// (the manual shutter: SIGUSR1 and the `s` key in a real run).
///
/// `StageHarness` makes such stages with its own `triggers`, so `fireTrigger()` reaches them and no
/// other test. Conform a new stage kind by giving it this initialiser.
public protocol TriggeredStage: Stage {
    /// Creates the stage from validated properties, listening to `triggers`.
    init(name: String, properties: PropertyValues, triggers: Triggers) throws(StageError)
}

extension CaptureStage: TriggeredStage {}
extension SnapshotStage: TriggeredStage {}
