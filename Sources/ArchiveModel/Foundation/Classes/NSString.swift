import BinaryPlist

/// `NSString` and `NSMutableString`, as Swift `String`.
///
/// In keyed archives a string is a bare plist string, one object per distinct string (the writer's
/// ``KeyedFieldWriter/stringObject(_:)``); an object of the mutable class holds it in `NS.string`. In
/// typedstreams (version 1): one `+` group, the characters in UTF-8.
///
/// Mirrors `NSString` / `NSMutableString` (`__NSCFString`, `__NSCFConstantString`) and their
/// `encode(with:)` / `init(coder:)`.
package enum NSStringClass: FoundationClass {
    package static let classes = [
        FoundationClassInfo(.string, "NSString", privateNames: ["__NSCFString", "__NSCFConstantString"],
                            typedStreamVersions: [1, 0], valueType: String.self, kind: .string),
        FoundationClassInfo(.mutableString, "NSMutableString", superclasses: ["NSString", "NSObject"],
                            typedStreamVersions: [1, 1, 0], mutable: true, valueType: String.self, kind: .string),
    ]

    /// An `NSString` or `NSMutableString` object written as an object (as the mutable class is): its
    /// `NS.string`.
    @inlinable
    package static func decode<R: KeyedFieldReader>(keyed r: R) throws -> Any {
        try r.requiredField("NS.string", as: String.self, of: "NSString")
    }

    /// The fields of an `NSMutableString` in the current object: the string inline in `NS.string`.
    @inlinable
    package static func encodeFields<W: KeyedFieldWriter>(keyed string: String, to w: W) {
        w.setInlineString(string, forRawKey: "NS.string")
    }

    /// One `+` group, UTF-8.
    @inlinable
    package static func decode<R: StreamFieldReader>(stream r: R) throws -> Any {
        let (bytes, start) = try r.decodeUnsharedBytes()
        // ASCII (most strings) is UTF-8 already: no second pass to validate.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = validUTF8String(Array(bytes)) else {
            throw r.invalidValue("the characters of an NSString are not UTF-8", at: start)
        }
        return string
    }

    /// An object of `standard` (`NSString` or `NSMutableString`), numbered for `identity` when given.
    @inlinable
    package static func encode<W: StreamFieldWriter>(stream string: String, as standard: StandardClass = .string,
                                                     identity: AnyObject? = nil, to w: W) {
        w.writeObject(of: standard, identity: identity) {
            w.writeGroup(encoding: "+")
            w.writeRawUnsharedBytes(Array(string.utf8))
        }
    }
}
