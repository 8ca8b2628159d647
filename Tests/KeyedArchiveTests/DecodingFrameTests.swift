@testable import KeyedArchive
import Testing

/// A node of a chain: `value`, then `next`. The node marked `bad` writes a string for `value`; one marked
/// `failing` writes a `Failing` child whose initializer throws.
private final class ChainNode: KeyedArchivable {
    static var archivedClassName: String { "ChainNode" }
    var value: Double
    var next: ChainNode?
    var bad = false
    var label: String?
    init(value: Double, next: ChainNode?) {
        self.value = value
        self.next = next
    }
    init(coder: KeyedUnarchiver) throws {
        value = try coder.decode(Double.self, forKey: "value")
        next = try coder.decodeIfPresent(ChainNode.self, forKey: "next")
        label = try coder.decodeIfPresent(String.self, forKey: "label")
    }
    func encode(with coder: KeyedArchiver) {
        if bad { coder.encode("not a number", forKey: "value") } else { coder.encode(value, forKey: "value") }
        if let next { coder.encode(next, forKey: "next") }
        if let label { coder.encode(label, forKey: "label") }
    }
}

/// Its initializer reads a key of its own, then throws (`FailedObjectReadAgainTests` uses it too).
class Failing: KeyedArchivable {
    class var archivedClassName: String { "Failing" }
    init() {}
    required init(coder: KeyedUnarchiver) throws {
        _ = try coder.decode(Double.self, forKey: "inner")
        throw KeyedArchiveError(.invalidValue, "refused on purpose")
    }
    func encode(with coder: KeyedArchiver) { coder.encode(7.5, forKey: "inner") }
}

/// Reads `before`, then a `Failing` child with `try?`, then `after` and `count`: the child's failure must
/// leave this object's own keys current.
private final class Survivor: KeyedArchivable {
    static var archivedClassName: String { "Survivor" }
    var before = 0.0, after = 0.0, count = 0
    var child: Failing?
    var childError: KeyedArchiveError?
    init() {}
    init(coder: KeyedUnarchiver) throws {
        before = try coder.decode(Double.self, forKey: "before")
        do {
            child = try coder.decodeIfPresent(Failing.self, forKey: "child")
        } catch let error as KeyedArchiveError {
            childError = error
        }
        after = try coder.decode(Double.self, forKey: "after")
        count = try coder.decode(Int.self, forKey: "count")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(1.25, forKey: "before")
        coder.encode(Failing(), forKey: "child")
        coder.encode(2.5, forKey: "after")
        coder.encode(3, forKey: "count")
    }
}

/// The unarchiver's frame of the object being decoded, opened and closed around each object's initializer
/// without a closure: it must come back on every path, thrown errors included, and the key path an error
/// names must follow the nesting however deep it goes.
@Suite struct DecodingFrameTests {
    private let registry = ClassRegistry([ChainNode.self, Failing.self, Survivor.self])

    @Test func aChildThatThrowsLeavesItsParentReadingItsOwnKeys() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: [Survivor(), Survivor()])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Survivor].self, from: bytes, registry: registry))
        #expect(back.count == 2)
        for survivor in back {
            #expect(survivor.before == 1.25)
            #expect(survivor.after == 2.5)
            #expect(survivor.count == 3)
            #expect(survivor.child == nil)
            #expect(survivor.childError?.code == .invalidValue)
            #expect(survivor.childError?.reason == "refused on purpose")
        }
    }

    @Test func theKeyPathOfADeepErrorNamesEveryLevelItKeeps() throws {
        // 30 nodes: the stack of keys grows past its first storage (16 keys) on the way down.
        var head: ChainNode? = nil
        var innermost: ChainNode? = nil
        for i in 0..<30 {
            head = ChainNode(value: Double(i), next: head)
            if i == 0 { innermost = head }
        }
        innermost?.bad = true
        let bytes = try KeyedArchiver.archivedData(withRootObject: try #require(head))
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: ChainNode.self, from: bytes, registry: registry)
        }
        #expect(error?.code == .typeMismatch)
        // "root", 29 times "next", then "value": 31 keys, shown as the first 4, "…" and the last 6.
        #expect(error?.keyPath == "root.next.next.next.….next.next.next.next.next.value")
    }

    @Test func aChainDeeperThanTheKeyStackStorageDecodesWhole() throws {
        var head: ChainNode? = nil
        for i in 0..<100 {
            let node = ChainNode(value: Double(i), next: head)
            if i % 2 == 0 { node.label = "n\(i)" }  // two key sets alternate: records replay and restart
            head = node
        }
        let bytes = try KeyedArchiver.archivedData(withRootObject: try #require(head))
        var node = try KeyedUnarchiver.unarchivedObject(ofType: ChainNode.self, from: bytes, registry: registry)
        var values: [Double] = []
        var labels = 0
        while let current = node {
            values.append(current.value)
            if let label = current.label {
                #expect(label == "n\(Int(current.value))")
                labels += 1
            }
            node = current.next
        }
        #expect(values == (0..<100).reversed().map(Double.init))
        #expect(labels == 50)
    }

    @Test func aDoubleFieldHoldingAnIntegerIsConvertedExactly() throws {
        final class Holder: KeyedArchivable {
            static var archivedClassName: String { "Holder" }
            var value: Double = 0
            init() {}
            init(coder: KeyedUnarchiver) throws { value = try coder.decode(Double.self, forKey: "v") }
            func encode(with coder: KeyedArchiver) { coder.encode(Int64(1 << 53), forKey: "v") }
        }
        let bytes = try KeyedArchiver.archivedData(withRootObject: Holder())
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: bytes, registry: ClassRegistry([Holder.self]))
        #expect(back?.value == 9_007_199_254_740_992)
    }
}

/// Keeps the unarchiver it is decoded with, so a test can call it after the decode's scope ended.
private final class Escaper: KeyedArchivable {
    static var archivedClassName: String { "Escaper" }
    nonisolated(unsafe) static var kept: KeyedUnarchiver?
    init() {}
    init(coder: KeyedUnarchiver) throws { Self.kept = coder }
    func encode(with coder: KeyedArchiver) { coder.encode(1.5, forKey: "x") }
}

@Suite struct UnarchiverOutsideItsScopeTests {
    /// Every read of an unarchiver kept past its decode is refused (the document's bytes are gone), the
    /// unkeyed read too.
    @Test func everyReadAfterTheScopeThrowsInsteadOfReadingFreedBytes() throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: Escaper())
        _ = try KeyedUnarchiver.unarchivedObject(ofType: Escaper.self, from: bytes, registry: ClassRegistry([Escaper.self]))
        let kept = try #require(Escaper.kept)
        defer { Escaper.kept = nil }
        let reads: [(String, () throws -> Void)] = [
            ("decodeObject(of:)", { _ = try kept.decodeObject(of: Double.self) }),
            ("decode(Double)", { _ = try kept.decode(Double.self, forKey: "x") }),
            ("containsValue", { _ = try kept.containsValue(forKey: "x") }),
            ("allKeys", { _ = try kept.allKeys() }),
            ("decodeIfPresent", { _ = try kept.decodeIfPresent(String.self, forKey: "x") }),
        ]
        for (name, read) in reads {
            let error = #expect(throws: KeyedArchiveError.self, "\(name)") { try read() }
            #expect(error?.code == .invalidValue, "\(name)")
            #expect(error?.reason == "the unarchiver is used outside the scope that created it", "\(name)")
        }
    }
}
