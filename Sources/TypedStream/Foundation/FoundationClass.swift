/// The Foundation classes the typedstream reader and writer know, the one list of them: each class's
/// name, the versions `NSArchiver` writes for it and its superclasses, and which function of its file
/// (`Foundation/NSString.swift`, ...) decodes it.
///
/// A new class is a case here, its name and chain below, one line in the dispatch, and its own file.
enum FoundationClass: Sendable, CaseIterable {
    case string, mutableString, number, value, data, mutableData, date, array, mutableArray
    case dictionary, mutableDictionary, set, mutableSet, url, null, attributedString, mutableAttributedString

    var className: String {
        switch self {
        case .string: "NSString"
        case .mutableString: "NSMutableString"
        case .number: "NSNumber"
        case .value: "NSValue"
        case .data: "NSData"
        case .mutableData: "NSMutableData"
        case .date: "NSDate"
        case .array: "NSArray"
        case .mutableArray: "NSMutableArray"
        case .dictionary: "NSDictionary"
        case .mutableDictionary: "NSMutableDictionary"
        case .set: "NSSet"
        case .mutableSet: "NSMutableSet"
        case .url: "NSURL"
        case .null: "NSNull"
        case .attributedString: "NSAttributedString"
        case .mutableAttributedString: "NSMutableAttributedString"
        }
    }

    /// The class chain with versions that `NSArchiver` writes, the class first.
    var chain: [(name: String, version: Int)] {
        let object = ("NSObject", 0)
        switch self {
        case .string: return [("NSString", 1), object]
        case .mutableString: return [("NSMutableString", 1), ("NSString", 1), object]
        case .number: return [("NSNumber", 0), ("NSValue", 0), object]
        case .mutableData: return [("NSMutableData", 0), ("NSData", 0), object]
        case .mutableArray: return [("NSMutableArray", 0), ("NSArray", 0), object]
        case .mutableDictionary: return [("NSMutableDictionary", 0), ("NSDictionary", 0), object]
        case .mutableSet: return [("NSMutableSet", 0), ("NSSet", 0), object]
        case .mutableAttributedString: return [("NSMutableAttributedString", 0), ("NSAttributedString", 0), object]
        default: return [(className, 0), object]
        }
    }

    /// Whether the class is a mutable one, which a reader that keeps classes gives as an `ArchivedMutableObject`.
    var isMutable: Bool {
        switch self {
        case .mutableString, .mutableData, .mutableArray, .mutableDictionary, .mutableSet, .mutableAttributedString: true
        default: false
        }
    }

    private static let byName: [String: FoundationClass] = {
        var map: [String: FoundationClass] = [:]
        for c in allCases { map[c.className] = c }
        return map
    }()

    init?(className: String) {
        guard let c = Self.byName[className] else { return nil }
        self = c
    }
}

extension TypedStreamUnarchiver {
    /// Decodes the values of an object of a Foundation class (not through its end of object).
    func decodeFoundation(_ foundation: FoundationClass) throws -> Any {
        switch foundation {
        case .string, .mutableString: try decodeNSString()
        case .number: try decodeNSNumber()
        case .data, .mutableData: try decodeNSData()
        case .date: try decodeNSDate()
        case .array, .mutableArray: try decodeNSArray()
        case .dictionary, .mutableDictionary: try decodeNSDictionary()
        case .set, .mutableSet: try decodeNSSet()
        case .url: try decodeNSURL()
        case .null: decodeNSNull()
        case .attributedString, .mutableAttributedString: try decodeNSAttributedString()
        // Read through its end by decodeNSValue (an unknown type encoding makes it a generic object).
        case .value: try decodeNSNumber()
        }
    }
}
