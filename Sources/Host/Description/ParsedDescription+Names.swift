/// An element at the top level of a description (not inside a bin) with the name it goes by.
struct NamedElement: Equatable, Sendable {
    /// Index of the chain holding the element.
    var chain: Int
    /// Index of the element in its chain.
    var node: Int
    /// The element's factory (or stage kind).
    var factory: String
    /// Its `name=` value, or a GStreamer-style automatic name (`factory` + counter).
    var name: String
    /// Whether `name` was written as `name=` rather than made up.
    var isExplicit: Bool
}

extension ParsedDescription {
    /// The top-level elements in document order with their names: `name=` when given, else the factory
    /// followed by how many unnamed elements of that factory came before (`grid0`, `grid1`), skipping
    /// numbers that an explicit name already uses. URI elements are left out.
    func namedElements() -> [NamedElement] {
        var explicit: Set<String> = []
        for chain in chains {
            for node in chain.nodes {
                if let name = node.explicitName { explicit.insert(name) }
            }
        }
        var counters: [String: Int] = [:]
        var result: [NamedElement] = []
        for (c, chain) in chains.enumerated() {
            for (n, node) in chain.nodes.enumerated() {
                guard case .element(let factory, _, _) = node, !factory.contains("://") else { continue }
                if let name = node.explicitName {
                    result.append(NamedElement(chain: c, node: n, factory: factory, name: name, isExplicit: true))
                    continue
                }
                var counter = counters[factory, default: 0]
                while explicit.contains(factory + String(counter)) { counter += 1 }
                counters[factory] = counter + 1
                result.append(
                    NamedElement(chain: c, node: n, factory: factory, name: factory + String(counter), isExplicit: false))
            }
        }
        return result
    }
}
