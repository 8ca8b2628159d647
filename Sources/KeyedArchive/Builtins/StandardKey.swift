/// Raw keys that the standard classes use in every object, which the archiver and unarchiver keep at hand
/// (their plist nodes, their string objects) instead of hashing the key string each time.
enum StandardKey: Int, CaseIterable {
    case classKey, time, keys, objects

    /// How many keys there are (`allCases.count` builds an array each time).
    static let count = allCases.count

    var name: String {
        switch self {
        case .classKey: "$class"
        case .time: "NS.time"
        case .keys: "NS.keys"
        case .objects: "NS.objects"
        }
    }
}

extension Dictionary where Value == Int32 {
    /// The value for `key`, after inserting `value` for it if the key is new: one hash of the key either way.
    @inline(__always)
    mutating func uniqueValue(for key: Key, _ value: Int32) -> Int32 {
        func read(_ stored: inout Int32) -> Int32 { stored }
        return read(&self[key, default: value])
    }
}
