import Foundation
import GStreamerKit
import Stages

/// Makes a session's services once its description is planned and its pipelines built. Factories are listed in
/// `SessionOptions.services` (the ones a process adds: the settings writer, the control server, the MQTT bridge;
/// a test's own) and `ServiceRegistry.builtIn` (the host's own), in that order: the order services are made,
/// prepared, print their lines and are told things (closed in the reverse order). A factory may claim description
/// elements (`elements`): those are replaced by relay appsinks (or by the real element the spec's `replacement`
/// gives) before planning and handed to `make`.
public protocol ServiceFactory: Sendable {
    /// The description elements it provides (none by default).
    var elements: [ServiceElementSpec] { get }
    /// The services for this session (none when it has nothing to do here). Usage errors are exit 2.
    func make(_ build: ServiceBuild) throws(HostError) -> [any SessionService]
}

extension ServiceFactory {
    public var elements: [ServiceElementSpec] { [] }
}

/// A description element a service provides, such as `rtspserve`: a sink that is not a GStreamer element. Its
/// properties are declared and parsed as a stage's are (`PropertySpec`, the same code and the same messages);
/// `name=` is every such element's and names the element it becomes: a relay appsink the service pulls (the
/// default), or the real element `replacement` computes (`recordings` becomes a `splitmuxsink`).
public struct ServiceElementSpec: Sendable {
    /// Computes the element a claim becomes from its validated properties and its name (`name=` or the prefix and a
    /// count). It runs while the description is built, also for `--dry-run`: it may read the file system but must
    /// create nothing. Usage errors (exit 2) name the bad property and what was expected.
    public typealias Replacement = @Sendable (_ values: PropertyValues, _ name: String) throws(HostError) -> ElementReplacement

    /// The name written in descriptions.
    public var factory: String
    /// Its properties but `name` (which every one has).
    public var properties: [PropertySpec]
    /// What must feed it, for the error when nothing does (e.g. "RTP, e.g. '... ! rtph264pay ! rtspserve'").
    public var feed: String
    /// Buffers the relay appsink holds (it drops the oldest beyond).
    public var maxBuffers: Int
    /// Default element names: this prefix and a count (`vf_rtsp0`, `vf_rtsp1`...).
    public var sinkPrefix: String
    /// Further inputs it takes by reference, as a muxer does (`clips`: `audio`): a chain ending in `NAME.` (the first
    /// one) or `NAME.INPUT` becomes a relay appsink of its own, `NAME_INPUT` (`ClaimedElement.inputs`).
    public var inputs: [String]
    /// The real element a claim becomes; nil (the default): a relay appsink of `maxBuffers`.
    public var replacement: Replacement?

    public init(
        factory: String, properties: [PropertySpec], feed: String, maxBuffers: Int, sinkPrefix: String, inputs: [String] = [],
        replacement: Replacement? = nil
    ) {
        self.factory = factory; self.properties = properties; self.feed = feed; self.maxBuffers = maxBuffers
        self.sinkPrefix = sinkPrefix; self.inputs = inputs; self.replacement = replacement
    }

    /// Every property, `name` first.
    public var allProperties: [PropertySpec] {
        let blurb = replacement == nil ? "name of the relay appsink the element becomes" : "name of the element it becomes"
        return [PropertySpec("name", blurb, .string, default: "")] + properties
    }
}

/// The real element a claimed description element becomes (`ServiceElementSpec.replacement`): a GStreamer factory
/// and its properties, `name=` added by `ServiceClaims`.
public struct ElementReplacement: Sendable, Equatable {
    /// The GStreamer element factory (`splitmuxsink`).
    public var factory: String
    /// Its properties as the description will carry them (without `name`).
    public var properties: [PropertyAssignment]
    /// Directories its files go in that the service creates when the run starts (`SessionService.willPlay`): the
    /// files check before anything runs (`Preflight.checkFiles`) accepts them missing when they can be created.
    public var createsDirectories: [String]

    public init(factory: String, properties: [PropertyAssignment], createsDirectories: [String] = []) {
        self.factory = factory; self.properties = properties; self.createsDirectories = createsDirectories
    }
}

/// One claimed element of a description, as its factory gets it.
public struct ClaimedElement: Sendable {
    /// The element's factory name (`rtspserve`).
    public var factory: String
    /// The element it became: the relay appsink, or the replacement (`name=` as written, else the spec's prefix and
    /// a count).
    public var appSink: String
    /// Its validated properties (defaults filled in).
    public var values: PropertyValues
    /// The properties as written, in order.
    public var written: [(key: String, value: String)]
    /// The relay appsinks of its further inputs that the description links (`audio` -> `vf_clips0_audio`).
    public var inputs: [String: String] = [:]
    /// The real element it became, nil for a relay appsink.
    public var replacement: ElementReplacement? = nil
    /// The name of the element it became (`appSink`, also for a replacement).
    public var elementName: String { appSink }
}

/// What a factory sees of a built session.
public struct ServiceBuild: @unchecked Sendable {
    /// The expanded plan.
    public let plan: ExpansionPlan
    /// One pipeline per segment, in plan order.
    public let pipelines: [Pipeline]
    /// The stage groups, in plan order (host services only: `StageGroup` is the host's).
    let groups: [StageGroup]
    /// The options the session was made with.
    public let options: SessionOptions
    /// Every claimed element, in description order.
    public let claims: [ClaimedElement]

    /// The claimed elements of one factory, in description order.
    public func claims(of factory: String) -> [ClaimedElement] { claims.filter { $0.factory == factory } }

    /// A relay appsink by name (a claimed element's further input), nil when no segment has it.
    public func appSink(named name: String) -> AppSink? { pipelines.lazy.compactMap { $0.appSink(named: name) }.first }

    /// The appsink a claimed element became, or a usage error (it must be there: the builder put it there).
    public func appSink(of claim: ClaimedElement) throws(HostError) -> AppSink {
        guard let sink = pipelines.lazy.compactMap({ $0.appSink(named: claim.appSink) }).first else {
            throw HostError(.usage, "internal: \(claim.factory)'s appsink '\(claim.appSink)' missing from the expanded segments")
        }
        return sink
    }
}

/// The services every session has (each makes nothing when its session does not need it), in the order their
/// hooks are called.
public enum ServiceRegistry {
    /// The host's own factories.
    public static var builtIn: [any ServiceFactory] {
        [
            RTSPServeFactory(), HLSOutputsFactory(), RecordingsFactory(), WebRTCServeFactory(), PreviewFactory(), SourceSwitchFactory(),
            SourceRecoveryFactory(), PhotoBranchFactory(), ClipsFactory(), OutputRetryFactory(), StopDeadlineFactory(), SRTExposureFactory(),
        ]
    }
}

/// Replaces the claimed elements of a description by relay appsinks, or by the real element their spec computes.
enum ServiceClaims {
    /// The description with every element of `specs` replaced by its appsink (or its replacement), and the claims;
    /// usage errors name the element, the bad property or neighbour, and what was expected.
    static func extract(from parsed: ParsedDescription, specs: [ServiceElementSpec]) throws(HostError) -> (ParsedDescription, [ClaimedElement]) {
        var out = parsed
        var claims: [ClaimedElement] = []
        for (c, chain) in parsed.chains.enumerated() {
            for (n, node) in chain.nodes.enumerated() {
                guard case .element(let factory, let properties, let offset) = node,
                    let spec = specs.first(where: { $0.factory == factory })
                else { continue }
                if n != chain.nodes.count - 1 {
                    let next = Echo.value(chain.nodes[n + 1].text)
                    throw HostError(.usage, "\(factory) is a sink: nothing can follow it (found '\(next)' after it)")
                }
                if n == 0 { throw HostError(.usage, "\(factory) has nothing before it: expected \(spec.feed)") }
                // Choices are matched without case (`codec=H264`), as the host's elements always took them.
                let written = properties.map { p -> (key: String, value: String) in
                    guard case .choice? = spec.properties.first(where: { $0.name == p.key })?.type else { return (p.key, p.value) }
                    return (p.key, p.value.lowercased())
                }
                let values: PropertyValues
                do { values = try PropertyValues(specs: spec.allProperties, assignments: written.map { ($0.key, $0.value) }, stage: factory) } catch {
                    throw HostError(.usage, error.message)
                }
                var sink = "\(spec.sinkPrefix)\(claims.filter { $0.factory == factory }.count)"
                if values.assigned.contains("name") {
                    let name = values.string("name")
                    guard !name.isEmpty else { throw HostError(.usage, "\(factory): empty name=: expected a name, e.g. name=out") }
                    sink = name
                }
                guard let replace = spec.replacement else {
                    claims.append(ClaimedElement(factory: factory, appSink: sink, values: values, written: written))
                    out.chains[c].nodes[n] = .element(
                        factory: "appsink", properties: PropertyAssignment.relaySink(name: sink, maxBuffers: spec.maxBuffers), offset: offset)
                    continue
                }
                let real = try replace(values, sink)
                claims.append(ClaimedElement(factory: factory, appSink: sink, values: values, written: written, replacement: real))
                out.chains[c].nodes[n] = .element(
                    factory: real.factory, properties: [PropertyAssignment(key: "name", value: sink)] + real.properties, offset: offset)
            }
        }
        try linkInputs(&out, &claims, specs: specs)
        return (out, claims)
    }

    /// Chains ending in a reference to a claimed element with further inputs (`... ! aacparse ! c.`, `c.audio`) end in
    /// that input's relay appsink instead.
    private static func linkInputs(_ out: inout ParsedDescription, _ claims: inout [ClaimedElement], specs: [ServiceElementSpec]) throws(HostError) {
        for (c, chain) in out.chains.enumerated() {
            guard chain.nodes.count > 1, case .reference(let name, let pad, let offset) = chain.nodes[chain.nodes.count - 1],
                let k = claims.firstIndex(where: { $0.appSink == name }),
                let spec = specs.first(where: { $0.factory == claims[k].factory }), let first = spec.inputs.first
            else { continue }
            let input = pad ?? first
            guard spec.inputs.contains(input) else {
                throw HostError(
                    .usage, "\(spec.factory) '\(name)' has no input '\(Echo.value(input))': expected \(spec.inputs.map { "'\(name).\($0)'" }.joined(separator: " or "))")
            }
            guard claims[k].inputs[input] == nil else {
                throw HostError(.usage, "\(spec.factory) '\(name)': its input '\(input)' is linked twice: expected one chain ending in '\(name).\(input)'")
            }
            let sink = "\(name)_\(input)"
            claims[k].inputs[input] = sink
            out.chains[c].nodes[chain.nodes.count - 1] = .element(
                factory: "appsink", properties: PropertyAssignment.relaySink(name: sink, maxBuffers: spec.maxBuffers), offset: offset)
        }
    }
}
