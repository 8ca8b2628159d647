import ArchiveModel

/// The Foundation classes the typedstream reader and writer know are ArchiveModel's one list of them
/// (`StandardClass`: names, chains, `NSArchiver` versions); this is the typedstream side of its dispatch:
/// the classes whose typedstream coding is still the codec's own (`Foundation/NSString.swift`, ...) here,
/// every other class by its file in `ArchiveModel/Foundation/Classes/` through `StandardClass`'s dispatch.
extension TypedStreamUnarchiver {
    /// Decodes the values of an object of a Foundation class (not through its end of object); `nil` for a
    /// class with no typedstream form, which is then read as any other class.
    func decodeFoundation(_ standard: StandardClass) throws -> Any? {
        switch standard {
        case .number: try decodeNSNumber()
        // Read through its end by decodeNSValue (an unknown type encoding makes it a generic object).
        case .value: try decodeNSNumber()
        default: try standard.decodeStream(from: self)
        }
    }
}
