extension Property {
    /// The typed value of a `PropertyValue` handed to a stage's `update`, or `error` when it holds another
    /// type: each stage keeps its own wording for a value that does not fit ("grid: cannot set ...").
    func value(_ v: PropertyValue, orThrow error: @autoclosure () -> StageError) throws(StageError) -> Value {
        guard let t = Value(propertyValue: v) else { throw error() }
        return t
    }
}
