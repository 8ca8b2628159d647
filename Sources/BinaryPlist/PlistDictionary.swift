/// A property-list dictionary that keeps its keys in file order.
///
/// Keys are usually strings, but binary plists written by CoreFoundation may hold any scalar as a key (an
/// `NSData` key, a number): those are kept. Lookup by string key is a linear scan for small dictionaries and
/// an index for large ones. Equality ignores key order.
///
/// Mirrors `CFDictionary` in a property list.
public struct PlistDictionary: Sendable {
    /// One key and its value.
    public struct Entry: Sendable, Hashable {
        /// The key: a string, or any scalar in a binary plist.
        public var key: PlistValue
        /// The value.
        public var value: PlistValue
        /// An entry of `key` and `value`.
        public init(key: PlistValue, value: PlistValue) {
            self.key = key
            self.value = value
        }
    }

    /// The entries in file (or insertion) order.
    public private(set) var entries: [Entry]
    /// String key -> position, built only for large dictionaries.
    private var index: [String: Int]?

    private static let indexThreshold = 24

    /// An empty dictionary.
    public init() {
        entries = []
        index = nil
    }

    /// A dictionary of `pairs`, in their order.
    package init(_ pairs: some Sequence<(PlistValue, PlistValue)>) {
        self.init(entries: pairs.map { Entry(key: $0.0, value: $0.1) })
    }

    /// A dictionary of `entries`, in their order.
    public init(entries: [Entry]) {
        self.entries = entries
        self.index = nil
        rebuildIndex()
    }

    /// The number of entries.
    public var count: Int { entries.count }
    /// Whether the dictionary has no entries.
    public var isEmpty: Bool { entries.isEmpty }
    /// The keys, in order.
    package var keys: [PlistValue] { entries.map(\.key) }
    /// The values, in the order of their keys.
    package var values: [PlistValue] { entries.map(\.value) }

    /// Whether every key is a string.
    package var hasOnlyStringKeys: Bool {
        entries.allSatisfy { if case .string = $0.key { true } else { false } }
    }

    /// The value for a string key, or `nil`. Setting `nil` removes the key; setting a new key appends it.
    public subscript(key: String) -> PlistValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return entries[i].value
        }
        set {
            if let i = position(of: key) {
                if let newValue {
                    entries[i].value = newValue
                } else {
                    entries.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                entries.append(Entry(key: .string(key), value: newValue))
                if index != nil || entries.count > Self.indexThreshold {
                    if index == nil { rebuildIndex() } else { index?[key] = entries.count - 1 }
                }
            }
        }
    }

    /// The value for any key, compared by value.
    package subscript(key: PlistValue) -> PlistValue? {
        if case .string(let s) = key { return self[s] }
        return entries.first(where: { $0.key == key })?.value
    }

    /// Appends an entry without checking for an existing key (for readers that keep duplicates' order).
    package mutating func append(key: PlistValue, value: PlistValue) {
        entries.append(Entry(key: key, value: value))
        if let k = key.stringValue, index != nil || entries.count > Self.indexThreshold {
            if index == nil { rebuildIndex() } else if index?[k] == nil { index?[k] = entries.count - 1 }
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in entries.indices {
            if case .string(let s) = entries[i].key, s == key { return i }
        }
        return nil
    }

    private mutating func rebuildIndex() {
        guard entries.count > Self.indexThreshold else {
            index = nil
            return
        }
        var map: [String: Int] = [:]
        map.reserveCapacity(entries.count)
        for (i, e) in entries.enumerated() {
            if case .string(let s) = e.key, map[s] == nil { map[s] = i }
        }
        index = map
    }
}

extension PlistDictionary: Hashable {
    /// Whether two dictionaries hold the same entries, in any order.
    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        if lhs.entries == rhs.entries { return true }
        return PlistValue.sameMultiset(
            lhs.entries.map { .array([$0.key, $0.value]) }, rhs.entries.map { .array([$0.key, $0.value]) })
    }

    /// Hashes the entries independently of their order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        hasher.combine(entries.reduce(0) { $0 &+ $1.hashValue })
    }
}

extension PlistDictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary of string keys, in the literal's order.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self.init(elements.map { (PlistValue.string($0.0), $0.1) })
    }
}
