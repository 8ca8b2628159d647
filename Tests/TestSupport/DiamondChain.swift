import BinaryPlist
import KeyedArchive

/// A keyed archive whose sharing doubles at each level: `$objects` = $null, Node 1 ... Node `length`, the
/// class; node i has fields `a` and `b` both pointing to i+1 (the tree form prints 2^length objects).
/// Shared by the archive-JSON budget tests and the inspector's.
public enum DiamondChain {
    public static func bytes(length: Int) throws -> [UInt8] {
        var objects: [PlistValue] = ["$null"]
        let classUID = PlistValue.uid(PlistUID(UInt64(length + 1)))
        for i in 1...length {
            var node: PlistDictionary = ["$class": classUID]
            if i < length {
                node.append(key: "a", value: .uid(PlistUID(UInt64(i + 1))))
                node.append(key: "b", value: .uid(PlistUID(UInt64(i + 1))))
            }
            objects.append(.dictionary(node))
        }
        objects.append(["$classname": "Node", "$classes": ["Node", "NSObject"]])
        return try ArchiveGraph(top: ["root": .uid(PlistUID(1))], objects: objects).encoded()
    }
}
