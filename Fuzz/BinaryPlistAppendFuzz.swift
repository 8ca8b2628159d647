// libFuzzer entry for the binary plist appender: whatever the input, making an appender, appending and
// serializing either refuses with a PlistError (or nil) or gives a plist in which every old object reads as
// before, the extended array holds its old references then the new ones, the new objects read as appended,
// and which can be appended to in turn (see FuzzSupport.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let document = plistErrorOrValue("BinaryPlistDocument.init", { try BinaryPlistDocument(input) }),
          var appender = plistErrorOrValue("BinaryPlistAppender.init", { try BinaryPlistAppender(document) })
    else { return 0 }
    // The first array referenced exactly once (the top object counts the trailer's reference).
    guard let target = (0..<min(document.objectCount, 4096)).first(where: { index in
        appender.referenceCount(of: index) == 1 && { if case .array = try? document.object(index) { true } else { false } }()
    }) else { return 0 }
    let appended: [PlistValue] = ["fuzz", .array([.integer(1), .uid(PlistUID(2)), "fuzz"]), ["k": .real(0.5)]]
    let added = appended.map { value in mustSucceed("append") { try appender.append(value) } }
    guard let old = plistErrorOrValue("references(ofArray:)", { try appender.references(ofArray: target) }) else {
        finding("an array the appender accepted cannot be read")
    }
    mustSucceed("extendArray") { try appender.extendArray(target, with: added) }
    guard let result = appender.serialize() else {
        // Only a reference width too narrow for the new objects may refuse.
        let width = document.trailer.referenceWidth
        if width >= 8 || appender.objectCount < 1 << (8 * width) { finding("serialize refused without a reason") }
        return 0
    }
    let new = mustSucceed("BinaryPlistDocument(result)") { try BinaryPlistDocument(result) }
    for index in 0..<min(document.objectCount, 4096) where index != target {
        let before = plistErrorOrValue("old object(\(index))") { try document.object(index) }
        let after = plistErrorOrValue("new object(\(index))") { try new.object(index) }
        if shape(before) != shape(after) { finding("object \(index) changed") }
    }
    guard case .array(let refs) = mustSucceed("new object(target)", { try new.object(target) }),
          Array(refs) == old + added
    else { finding("the extended array does not hold the old references then the new ones") }
    for (value, index) in zip(appended, added) where mustSucceed("decode new", { try new.decodeObject(index) }) != value {
        finding("appended object \(index) does not read back")
    }
    _ = mustSucceed("BinaryPlistAppender(result)") { try BinaryPlistAppender(new) }
    return 0
}

/// A scalar's value or a collection's references, to compare objects without materializing their children.
func shape(_ object: BinaryPlistDocument.Object?) -> [PlistValue]? {
    switch object {
    case nil: return nil
    case .scalar(let value): return [value]
    case .array(let r): return ["array"] + r.map { .integer(PlistInteger($0)) }
    case .set(let r): return ["set"] + r.map { .integer(PlistInteger($0)) }
    case .dictionary(let keys, let values): return ["dict"] + (Array(keys) + Array(values)).map { .integer(PlistInteger($0)) }
    }
}
