/// The Foundation classes that are built in: how each is named and chained in `$classes`.
enum StandardClass: Int, Sendable, CaseIterable {
    case string, mutableString, number, array, mutableArray, dictionary, mutableDictionary, set, mutableSet
    case orderedSet, mutableOrderedSet, date, data, mutableData, uuid, url, null, value

    var className: String {
        switch self {
        case .string: "NSString"
        case .mutableString: "NSMutableString"
        case .number: "NSNumber"
        case .array: "NSArray"
        case .mutableArray: "NSMutableArray"
        case .dictionary: "NSDictionary"
        case .mutableDictionary: "NSMutableDictionary"
        case .set: "NSSet"
        case .mutableSet: "NSMutableSet"
        case .orderedSet: "NSOrderedSet"
        case .mutableOrderedSet: "NSMutableOrderedSet"
        case .date: "NSDate"
        case .data: "NSData"
        case .mutableData: "NSMutableData"
        case .uuid: "NSUUID"
        case .url: "NSURL"
        case .null: "NSNull"
        case .value: "NSValue"
        }
    }

    /// The `$classes` chain Apple writes.
    var classChain: [String] {
        switch self {
        case .mutableString: ["NSMutableString", "NSString", "NSObject"]
        case .number: ["NSNumber", "NSValue", "NSObject"]
        case .mutableArray: ["NSMutableArray", "NSArray", "NSObject"]
        case .mutableDictionary: ["NSMutableDictionary", "NSDictionary", "NSObject"]
        case .mutableSet: ["NSMutableSet", "NSSet", "NSObject"]
        case .mutableOrderedSet: ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]
        case .mutableData: ["NSMutableData", "NSData", "NSObject"]
        default: [className, "NSObject"]
        }
    }

    private static let byName: [String: StandardClass] = {
        var map: [String: StandardClass] = [:]
        for c in allCases { map[c.className] = c }
        // Apple's private concrete subclasses that appear in archives.
        map["__NSCFString"] = .string
        map["__NSCFConstantString"] = .string
        map["__NSCFNumber"] = .number
        map["__NSCFBoolean"] = .number
        map["__NSArrayI"] = .array
        map["__NSArrayM"] = .mutableArray
        map["__NSDictionaryI"] = .dictionary
        map["__NSDictionaryM"] = .mutableDictionary
        map["__NSDate"] = .date
        map["__NSCFData"] = .data
        map["__NSConcreteUUID"] = .uuid
        return map
    }()

    init?(className: String) {
        guard let c = Self.byName[className] else { return nil }
        self = c
    }
}
