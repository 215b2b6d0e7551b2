import Overlay

/// A Swift type a stage property holds: how it is read from a validated `PropertyValue` and written back.
public protocol PropertyRepresentable: Sendable {
    /// The value, when `value` holds this type.
    init?(propertyValue value: PropertyValue)
    /// The value as a `PropertyValue`.
    var propertyValue: PropertyValue { get }
}

extension Bool: PropertyRepresentable {
    public init?(propertyValue v: PropertyValue) { guard case .bool(let b) = v else { return nil }; self = b }
    public var propertyValue: PropertyValue { .bool(self) }
}
extension Int: PropertyRepresentable {
    public init?(propertyValue v: PropertyValue) { guard case .int(let i) = v else { return nil }; self = i }
    public var propertyValue: PropertyValue { .int(self) }
}
extension Double: PropertyRepresentable {
    public init?(propertyValue v: PropertyValue) { guard case .double(let d) = v else { return nil }; self = d }
    public var propertyValue: PropertyValue { .double(self) }
}
extension String: PropertyRepresentable {
    public init?(propertyValue v: PropertyValue) { guard case .string(let s) = v else { return nil }; self = s }
    public var propertyValue: PropertyValue { .string(self) }
}
extension RGBAColor: PropertyRepresentable {
    public init?(propertyValue v: PropertyValue) { guard case .color(let c) = v else { return nil }; self = c }
    public var propertyValue: PropertyValue { .color(self) }
}
/// Frame numbers (`at=0,30,60`).
extension Array: PropertyRepresentable where Element == Int {
    public init?(propertyValue v: PropertyValue) { guard case .intList(let l) = v else { return nil }; self = l }
    public var propertyValue: PropertyValue { .intList(self) }
}

/// A property whose value is one word of a fixed set: an enum whose raw values are the words, in the
/// order `inspect` lists them.
public protocol PropertyChoice: PropertyRepresentable, RawRepresentable, CaseIterable where RawValue == String {}

extension PropertyChoice {
    public init?(propertyValue v: PropertyValue) {
        guard case .choice(let c) = v else { return nil }
        self.init(rawValue: c)
    }
    public var propertyValue: PropertyValue { .choice(rawValue) }
}

/// A set of words (`draw=subject+advice`) as Swift values.
public struct PropertyFlags<Flag: PropertyChoice & Hashable>: PropertyRepresentable, Equatable {
    /// The words set, in the order written.
    public var flags: [Flag]
    /// Creates a set.
    public init(_ flags: [Flag]) { self.flags = flags }
    /// Whether `flag` is set.
    public func contains(_ flag: Flag) -> Bool { flags.contains(flag) }
    public init?(propertyValue v: PropertyValue) {
        guard case .set(let words) = v else { return nil }
        var out: [Flag] = []
        for w in words { guard let f = Flag(rawValue: w) else { return nil }; out.append(f) }
        flags = out
    }
    public var propertyValue: PropertyValue { .set(flags.map(\.rawValue)) }
}

/// A declared stage property with its Swift type: the one place its name, blurb, range, default and
/// mutability are written. Stages list `spec`s in their descriptor and read values with
/// `values[Self.maxShots]`, so a misspelt name or a wrong type does not compile.
public struct Property<Value: PropertyRepresentable>: Sendable {
    /// Name, blurb, type with range, default text and mutability (what `inspect` shows).
    public let spec: PropertySpec
    /// The default, as a typed value.
    public let defaultValue: Value

    /// The name as written in descriptions.
    public var name: String { spec.name }

    /// A property of `type`; `defaultText` overrides how the default is written (a colour name).
    public init(
        _ name: String, _ blurb: String, _ type: PropertyType, default value: Value,
        defaultText: String? = nil, mutability: PropertyMutability = .beforeStart
    ) {
        spec = PropertySpec(name, blurb, type, default: defaultText ?? value.propertyValue.description, mutability: mutability)
        defaultValue = value
    }

    /// The typed value of a `PropertyValue` given for this property (an `update` while playing).
    public func value(_ v: PropertyValue, stage: String) throws(StageError) -> Value {
        guard let t = Value(propertyValue: v) else {
            throw StageError(
                .usage,
                "\(stage): bad value '\(Echo.value(v.description))' for property '\(name)': expected \(spec.type.name.lowercased()) \(spec.type.rangeText)"
            )
        }
        return t
    }
}

extension Property where Value: PropertyChoice {
    /// A choice property: its words are the enum's raw values.
    public init(_ name: String, _ blurb: String, default value: Value, mutability: PropertyMutability = .beforeStart) {
        self.init(name, blurb, .choice(Value.allCases.map(\.rawValue)), default: value, mutability: mutability)
    }
}

extension Property {
    /// A flags property: any of the enum's raw values joined by '+'.
    public init<Flag>(_ name: String, _ blurb: String, default value: [Flag], mutability: PropertyMutability = .beforeStart)
    where Value == PropertyFlags<Flag> {
        self.init(name, blurb, .set(Flag.allCases.map(\.rawValue)), default: PropertyFlags(value), mutability: mutability)
    }
}

extension PropertyValues {
    /// The typed value of a declared property. A property the stage did not declare is a programming
    /// error (caught by the stage's tests); release builds fall back to the property's default.
    public subscript<Value>(_ property: Property<Value>) -> Value {
        guard let v = value(named: property.name), let t = Value(propertyValue: v) else {
            assertionFailure("property '\(property.name)' is not declared by this stage or has another type")
            return property.defaultValue
        }
        return t
    }
}
