import Foundation
import KeyedArchive

/// A struct conforming: two equal values are two objects.
struct Point: KeyedArchivable, Equatable {
    var x: Double
    var y: Double
    init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    init(coder: KeyedUnarchiver) throws {
        x = try coder.decode(Double.self, forKey: "x")
        y = try coder.decode(Double.self, forKey: "y")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "x")
        coder.encode(y, forKey: "y")
    }
}

/// Every scalar and value kind under one object.
final class Sampler: KeyedArchivable {
    var flag = true
    var int = -5
    var int32: Int32 = 7
    var int64: Int64 = .max
    var float: Float = 1.25
    var double = 2.5
    var bytes: [UInt8] = [1, 2, 3]
    var string: String? = "text"
    var missing: String?
    var date = Date(timeIntervalSinceReferenceDate: 123.5)
    var data = Data([9, 8, 7])
    var uuid = UUID(uuidString: "54CD5574-E957-4499-8A09-DAB688C0B586") ?? UUID()
    var url = URL(string: "index.html", relativeTo: URL(string: "https://example.com/docs/")) ?? URL(fileURLWithPath: "/")
    var names: [String] = ["a", "b"]
    var scores: [String: Int] = ["x": 1, "y": 2]
    var tags: Set<String> = ["p", "q"]
    var dollar = 3

    init() {}

    init(coder: KeyedUnarchiver) throws {
        flag = try coder.decode(Bool.self, forKey: "flag")
        int = try coder.decode(Int.self, forKey: "int")
        int32 = try coder.decode(Int32.self, forKey: "int32")
        int64 = try coder.decode(Int64.self, forKey: "int64")
        float = try coder.decode(Float.self, forKey: "float")
        double = try coder.decode(Double.self, forKey: "double")
        bytes = try coder.decodeBytes(forKey: "bytes") ?? []
        string = try coder.decodeIfPresent(String.self, forKey: "string")
        missing = try coder.decodeIfPresent(String.self, forKey: "missing")
        date = try coder.decode(Date.self, forKey: "date")
        data = try coder.decode(Data.self, forKey: "data")
        uuid = try coder.decode(UUID.self, forKey: "uuid")
        url = try coder.decode(URL.self, forKey: "url")
        names = try coder.decode([String].self, forKey: "names")
        scores = try coder.decode([String: Int].self, forKey: "scores")
        tags = try coder.decode(Set<String>.self, forKey: "tags")
        dollar = try coder.decode(Int.self, forKey: "$dollar")
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(flag, forKey: "flag")
        coder.encode(int, forKey: "int")
        coder.encode(int32, forKey: "int32")
        coder.encode(int64, forKey: "int64")
        coder.encode(float, forKey: "float")
        coder.encode(double, forKey: "double")
        coder.encodeBytes(bytes, forKey: "bytes")
        coder.encode(string, forKey: "string")
        coder.encode(missing, forKey: "missing")
        coder.encode(date, forKey: "date")
        coder.encode(data, forKey: "data")
        coder.encode(uuid, forKey: "uuid")
        coder.encode(url, forKey: "url")
        coder.encode(names, forKey: "names")
        coder.encode(scores, forKey: "scores")
        coder.encode(tags, forKey: "tags")
        coder.encode(dollar, forKey: "$dollar")
    }
}

/// A tree node whose parent link is decoded with decodeDeferred, so parent/child cycles round-trip.
final class TreeNode: KeyedArchivable {
    var name: String
    var children: [TreeNode] = []
    weak var parent: TreeNode?
    init(name: String) { self.name = name }
    func add(_ child: TreeNode) {
        children.append(child)
        child.parent = self
    }
    required init(coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        children = try coder.decode([TreeNode].self, forKey: "children")
        try coder.decodeDeferred(TreeNode.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(children, forKey: "children")
        coder.encodeConditionalObject(parent, forKey: "parent")
    }
}

/// A singly linked list node, for depth limits.
final class Link: KeyedArchivable {
    var next: Link?
    init(next: Link?) { self.next = next }
    required init(coder: KeyedUnarchiver) throws { next = try coder.decodeIfPresent(Link.self, forKey: "next") }
    func encode(with coder: KeyedArchiver) { coder.encode(next, forKey: "next") }
}

/// Writes two values without keys.
final class Unkeyed: KeyedArchivable {
    var first = "one"
    var second = 2
    init() {}
    required init(coder: KeyedUnarchiver) throws {
        first = try coder.decodeObject(of: String.self) ?? ""
        second = try coder.decodeObject(of: Int.self) ?? 0
    }
    func encode(with coder: KeyedArchiver) {
        coder.encodeObject(first)
        coder.encodeObject(second)
    }
}
