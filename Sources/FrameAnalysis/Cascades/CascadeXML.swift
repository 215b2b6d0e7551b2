import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A minimal element tree of an OpenCV FileStorage XML document (elements, attributes, text).
final class CascadeXMLNode {
    let name: String
    let attributes: [String: String]
    var children: [CascadeXMLNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) { self.name = name; self.attributes = attributes }

    /// The first child element called `name`.
    func child(_ name: String) -> CascadeXMLNode? { children.first { $0.name == name } }

    /// Parses an XML file into its root element.
    static func parse(contentsOf url: URL) throws -> CascadeXMLNode {
        let file = url.path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CascadeError(file: file, reason: "expected a readable XML file, found none")
        }
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let why = parser.parserError.map { "\($0)" } ?? "no root element"
            throw CascadeError(file: file, reason: "expected well-formed XML, parser stopped at line \(parser.lineNumber): \(why)")
        }
        if let open = builder.stack.last {
            throw CascadeError(file: file, reason: "expected well-formed XML, found <\(open.name)> not closed at the end of the file")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [CascadeXMLNode] = []
        var root: CascadeXMLNode?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            let node = CascadeXMLNode(name: elementName, attributes: attributeDict)
            if let parent = stack.last { parent.children.append(node) } else if root == nil { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            // Containers only ever hold whitespace between children; keep text of leaf elements.
            if let top = stack.last, top.children.isEmpty { top.text += string }
        }
    }
}

extension CascadeModel {
    /// Loads an OpenCV cascade XML file in either layout.
    static func load(contentsOf url: URL) throws -> CascadeModel {
        let file = url.path
        let storage = try CascadeXMLNode.parse(contentsOf: url)
        guard storage.name == "opencv_storage" else {
            throw CascadeError(file: file, reason: "expected <opencv_storage> as the root element, found <\(storage.name)>")
        }
        guard let top = storage.children.first else {
            throw CascadeError(file: file, reason: "expected a cascade element inside <opencv_storage>, found none")
        }
        var reader = Reader(file: file)
        var model: CascadeModel
        if top.attributes["type_id"] == "opencv-haar-classifier" {
            model = try reader.oldLayout(top)
        } else if top.child("stageType") != nil {
            model = try reader.newLayout(top)
        } else {
            throw CascadeError(
                file: file,
                reason:
                    "expected <\(top.name)> to be a new-layout cascade (<stageType>) or type_id=\"opencv-haar-classifier\", found neither")
        }
        try model.validate(file: file)
        return model
    }

    /// Turns XML nodes into model values, naming the file and element in every error.
    private struct Reader {
        let file: String

        func fail(_ reason: String) -> CascadeError { CascadeError(file: file, reason: reason) }

        func element(_ parent: CascadeXMLNode, _ name: String, in context: String) throws -> CascadeXMLNode {
            guard let c = parent.child(name) else { throw fail("\(context): expected <\(name)>, found none") }
            return c
        }

        /// Whitespace-separated numbers of a leaf element, parsed as C's strtod does.
        func numbers(_ node: CascadeXMLNode, in context: String) throws -> [Double] {
            var out: [Double] = []
            for token in node.text.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                guard let v = Double(Substring(token)) else {
                    throw fail("\(context): expected numbers in <\(node.name)>, found '\(String(decoding: token, as: UTF8.self))'")
                }
                out.append(v)
            }
            return out
        }

        func integers(_ node: CascadeXMLNode, in context: String) throws -> [Int] {
            try numbers(node, in: context).map { v in
                guard v == v.rounded(), abs(v) < 1e15 else { throw fail("\(context): expected integers in <\(node.name)>, found \(v)") }
                return Int(v)
            }
        }

        func integer(_ parent: CascadeXMLNode, _ name: String, in context: String) throws -> Int {
            let values = try integers(try element(parent, name, in: context), in: context)
            guard values.count == 1 else { throw fail("\(context): expected one integer in <\(name)>, found \(values.count)") }
            return values[0]
        }

        func real(_ parent: CascadeXMLNode, _ name: String, in context: String) throws -> Double {
            let values = try numbers(try element(parent, name, in: context), in: context)
            guard values.count == 1 else { throw fail("\(context): expected one number in <\(name)>, found \(values.count)") }
            return values[0]
        }

        func word(_ parent: CascadeXMLNode, _ name: String, in context: String) throws -> String {
            try element(parent, name, in: context).text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A Haar feature: `<rects>` of "x y w h weight" plus optional `<tilted>`.
        func haarFeature(_ node: CascadeXMLNode, in context: String) throws -> HaarFeature {
            var rects: [HaarRect] = []
            for r in try element(node, "rects", in: context).children {
                let v = try numbers(r, in: context)
                guard v.count == 5 else { throw fail("\(context): expected 'x y width height weight' in a rect, found \(v.count) numbers") }
                guard v[0...3].allSatisfy({ $0 == $0.rounded() }) else {
                    throw fail("\(context): expected integer rect coordinates, found \(v)")
                }
                rects.append(HaarRect(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3]), weight: Float(v[4])))
            }
            let tilted = try node.child("tilted").map { try integers($0, in: context).first ?? 0 } ?? 0
            return HaarFeature(rects: rects, tilted: tilted != 0)
        }

        /// The layout written by `opencv_traincascade` and shipped by OpenCV 2.4+.
        mutating func newLayout(_ root: CascadeXMLNode) throws -> CascadeModel {
            let stageType = try word(root, "stageType", in: "<\(root.name)>")
            guard stageType == "BOOST" else { throw fail("expected <stageType>BOOST</stageType>, found '\(stageType)'") }
            let featureName = try word(root, "featureType", in: "<\(root.name)>")
            guard let featureType = FeatureType(rawValue: featureName) else {
                throw fail(
                    "expected <featureType> HAAR or LBP, found '\(featureName)'\(featureName == "HOG" ? " (HOG cascades are not supported, as in OpenCV 3+)" : "")"
                )
            }
            var model = CascadeModel(
                featureType: featureType,
                windowWidth: try integer(root, "width", in: "<\(root.name)>"),
                windowHeight: try integer(root, "height", in: "<\(root.name)>"))
            let params = try element(root, "featureParams", in: "<\(root.name)>")
            let categories = try integer(params, "maxCatCount", in: "<featureParams>")
            guard (featureType == .haar) == (categories == 0) else {
                throw fail("expected maxCatCount \(featureType == .haar ? "0 for HAAR" : "256 for LBP"), found \(categories)")
            }
            model.subsetSize = (categories + 31) / 32
            let nodeStep = 3 + (categories > 0 ? model.subsetSize : 1)

            for (si, stageNode) in try element(root, "stages", in: "<\(root.name)>").children.enumerated() {
                let context = "stage \(si)"
                let threshold = Float(try real(stageNode, "stageThreshold", in: context)) - CascadeModel.thresholdEpsilon
                let weak = try element(stageNode, "weakClassifiers", in: context).children
                model.stages.append(Stage(threshold: threshold, firstTree: model.treeNodeCounts.count, treeCount: weak.count))
                for (ti, tree) in weak.enumerated() {
                    let tcontext = "\(context), weak classifier \(ti)"
                    let values = try numbers(try element(tree, "internalNodes", in: tcontext), in: tcontext)
                    let leaves = try numbers(try element(tree, "leafValues", in: tcontext), in: tcontext)
                    guard !values.isEmpty, values.count % nodeStep == 0 else {
                        throw fail("\(tcontext): expected internalNodes in groups of \(nodeStep), found \(values.count) numbers")
                    }
                    let count = values.count / nodeStep
                    guard leaves.count == count + 1 else {
                        throw fail("\(tcontext): expected \(count + 1) leafValues, found \(leaves.count)")
                    }
                    for j in 0..<count {
                        let v = values[(j * nodeStep)..<((j + 1) * nodeStep)]
                        let b = v.startIndex
                        guard v.dropLast(categories > 0 ? 0 : 1).allSatisfy({ $0 == $0.rounded() && abs($0) < 1e10 }) else {
                            throw fail("\(tcontext): expected integer node fields, found \(Array(v))")
                        }
                        if categories > 0 {
                            model.nodes.append(Node(feature: Int(v[b + 2]), threshold: 0, left: Int(v[b]), right: Int(v[b + 1])))
                            for k in 0..<model.subsetSize { model.subsets.append(Int32(truncatingIfNeeded: Int(v[b + 3 + k]))) }
                        } else {
                            model.nodes.append(
                                Node(feature: Int(v[b + 2]), threshold: Float(v[b + 3]), left: Int(v[b]), right: Int(v[b + 1])))
                        }
                    }
                    model.treeNodeCounts.append(count)
                    model.leaves.append(contentsOf: leaves.map { Float($0) })
                }
            }

            for (fi, f) in try element(root, "features", in: "<\(root.name)>").children.enumerated() {
                let context = "feature \(fi)"
                if featureType == .haar {
                    model.haarFeatures.append(try haarFeature(f, in: context))
                } else {
                    let r = try integers(try element(f, "rect", in: context), in: context)
                    guard r.count == 4 else { throw fail("\(context): expected 'x y width height' in <rect>, found \(r.count) numbers") }
                    model.lbpFeatures.append(LBPFeature(x: r[0], y: r[1], width: r[2], height: r[3]))
                }
            }
            return model
        }

        /// The pre-2.4 layout (`type_id="opencv-haar-classifier"`): trees of nodes carrying their own
        /// features, with `left_val`/`right_val` leaves or `left_node`/`right_node` links. Converted to
        /// the new form as OpenCV does on load; only linear cascades (parent = previous stage).
        mutating func oldLayout(_ root: CascadeXMLNode) throws -> CascadeModel {
            let size = try integers(try element(root, "size", in: "<\(root.name)>"), in: "<size>")
            guard size.count == 2 else { throw fail("expected '<size>width height</size>', found \(size.count) numbers") }
            var model = CascadeModel(featureType: .haar, windowWidth: size[0], windowHeight: size[1])
            model.isOldLayout = true
            for (si, stageNode) in try element(root, "stages", in: "<\(root.name)>").children.enumerated() {
                let context = "stage \(si)"
                let parent = try stageNode.child("parent").map { try integers($0, in: context).first ?? -1 } ?? (si - 1)
                let next = try stageNode.child("next").map { try integers($0, in: context).first ?? -1 } ?? -1
                guard parent == si - 1, next == -1 else {
                    throw fail(
                        "\(context): expected a linear cascade (parent \(si - 1), next -1), found parent \(parent), next \(next): tree-structured cascades are not supported"
                    )
                }
                let threshold = Float(try real(stageNode, "stage_threshold", in: context)) - CascadeModel.thresholdEpsilon
                let trees = try element(stageNode, "trees", in: context).children
                model.stages.append(Stage(threshold: threshold, firstTree: model.treeNodeCounts.count, treeCount: trees.count))
                for (ti, tree) in trees.enumerated() {
                    let tcontext = "\(context), tree \(ti)"
                    var leafCount = 0
                    var treeLeaves: [Float] = []
                    for (j, n) in tree.children.enumerated() {
                        let ncontext = "\(tcontext), node \(j)"
                        model.haarFeatures.append(try haarFeature(try element(n, "feature", in: ncontext), in: ncontext))
                        func child(_ side: String) throws -> Int {
                            if let link = n.child("\(side)_node") {
                                return try integers(link, in: ncontext).first ?? 0
                            }
                            guard let leaf = n.child("\(side)_val") else {
                                throw fail("\(ncontext): expected <\(side)_val> or <\(side)_node>, found neither")
                            }
                            treeLeaves.append(Float(try real(n, leaf.name, in: ncontext)))
                            leafCount += 1
                            return -(leafCount - 1)
                        }
                        let left = try child("left"), right = try child("right")
                        model.nodes.append(
                            Node(
                                feature: model.haarFeatures.count - 1,
                                threshold: Float(try real(n, "threshold", in: ncontext)), left: left, right: right))
                    }
                    guard !tree.children.isEmpty, treeLeaves.count == tree.children.count + 1 else {
                        throw fail(
                            "\(tcontext): expected a binary tree (\(tree.children.count + 1) leaves for \(tree.children.count) nodes), found \(treeLeaves.count) leaves"
                        )
                    }
                    model.treeNodeCounts.append(tree.children.count)
                    model.leaves.append(contentsOf: treeLeaves)
                }
            }
            return model
        }
    }
}
