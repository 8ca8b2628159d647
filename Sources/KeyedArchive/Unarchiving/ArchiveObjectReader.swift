import BinaryPlist

/// The plist objects of an archive as the keyed layer reads them: ``BinaryPlistObjects``' reads, with a
/// malformed object reported as ``KeyedArchiveError/Code/invalidPlist`` whose ``KeyedArchiveError/underlying``
/// ``PlistError`` says where (object index and byte offset) and why.
///
/// Only valid inside the ``BinaryPlistDocument/withObjects(_:)`` scope that made `objects`. A class, so that
/// the unarchiver's hot paths reach it by reference.
final class ArchiveObjectReader {
    let objects: BinaryPlistObjects
    let objectCount: Int
    let topObject: Int

    init(_ objects: BinaryPlistObjects) {
        self.objects = objects
        objectCount = objects.objectCount
        topObject = objects.topObject
    }

    typealias Value = BinaryPlistObjects.Value
    typealias ArrayView = BinaryPlistObjects.ArrayView
    typealias DictionaryView = BinaryPlistObjects.DictionaryView

    /// The result of `read`, its ``PlistError`` reported as ``KeyedArchiveError/Code/invalidPlist``. (Untyped
    /// `throws` here on purpose: a typed error is returned through a slot in every caller's frame, and the
    /// unarchiver's recursion must stay small per level.)
    @inline(__always)
    func checked<T>(_ read: () throws(PlistError) -> T) throws -> T {
        do { return try read() } catch { throw Self.failure(error) }
    }

    @inline(never)
    static func failure(_ error: PlistError) -> KeyedArchiveError {
        KeyedArchiveError(.invalidPlist, error.description, underlying: error)
    }

    @inline(__always)
    func value(_ object: Int) throws -> Value {
        try checked { () throws(PlistError) in try objects.value(object) }
    }

    @inline(__always)
    func uid(_ object: Int) throws -> Int? {
        try checked { () throws(PlistError) in try objects.uid(object) }
    }

    @inline(__always)
    func real(_ object: Int) -> Double? { objects.real(object) }

    /// The real that value `i` of `d` refers to; `nil` for anything else, or a bad reference (read it again
    /// through ``valueReference(_:_:)`` for the error).
    @inline(__always)
    func real(_ d: DictionaryView, valueAt i: Int) -> Double? { objects.real(d, valueAt: i) }

    @inline(__always)
    func dictionary(_ object: Int) throws -> DictionaryView? {
        try checked { () throws(PlistError) in try objects.dictionary(object) }
    }

    @inline(__always)
    func array(_ object: Int) throws -> ArrayView? {
        try checked { () throws(PlistError) in try objects.array(object) }
    }

    @inline(__always)
    func plainString(_ object: Int) -> String? { objects.plainString(object) }

    func string(_ object: Int) throws -> String? {
        try checked { () throws(PlistError) in try objects.string(object) }
    }

    @inline(__always)
    func isString(_ object: Int, equalTo key: UnsafeBufferPointer<UInt8>) throws -> Bool {
        try checked { () throws(PlistError) in try objects.isString(object, equalTo: key) }
    }

    /// Whether object `object` is the string `literal` (compared as bytes: no string is made, nothing retained).
    /// `literal` is one of the format's names (`"$classname"`, `"$null"`...): a literal of several characters,
    /// so held as a pointer to its UTF-8 bytes.
    @inline(__always)
    func isString(_ object: Int, _ literal: StaticString) throws -> Bool {
        try isString(object, equalTo: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inline(__always)
    func keyReference(_ d: DictionaryView, _ i: Int) throws -> Int {
        try checked { () throws(PlistError) in try objects.keyReference(d, i) }
    }

    @inline(__always)
    func uncheckedKeyReference(_ d: DictionaryView, _ i: Int) -> Int { objects.uncheckedKeyReference(d, i) }

    @inline(__always)
    func valueReference(_ d: DictionaryView, _ i: Int) throws -> Int {
        try checked { () throws(PlistError) in try objects.valueReference(d, i) }
    }

    @inline(__always)
    func elementReference(_ a: ArrayView, _ i: Int) throws -> Int {
        try checked { () throws(PlistError) in try objects.elementReference(a, i) }
    }

    /// Object `object` and everything below it, within the document's limits.
    func materialize(_ object: Int) throws -> PlistValue {
        try checked { () throws(PlistError) in try objects.materialize(object) }
    }
}
