/// `NSOrderedSet` and `NSMutableOrderedSet` (`NS.object.0`, `NS.object.1`, ...), as `ArchivedOrderedSet`.
extension KeyedUnarchiver {
    /// An `NSOrderedSet` or `NSMutableOrderedSet` object: `NS.object.<i>` from 0 while present.
    func decodeNSOrderedSet(uid: Int) throws -> Any {
        var items: [AnyHashable] = []
        var i = 0
        while let v = try rawField("NS.object.\(i)") {
            items.append(try hashable(try anyValue(v, key: "NS.object.\(i)"), key: "NS.object.\(i)"))
            i += 1
        }
        return ArchivedOrderedSet(items)
    }
}

extension KeyedArchiver {
    /// An `NSOrderedSet` object.
    func orderedSetObject(_ set: ArchivedOrderedSet) -> Int32 {
        withObjectFrame(classUID: { classObject(.orderedSet) }) { orderedSetFields(set) }
    }

    /// The fields of an `NSOrderedSet` or `NSMutableOrderedSet` in the current frame.
    func orderedSetFields(_ set: ArchivedOrderedSet) {
        for (i, element) in set.elements.enumerated() {
            addField(keyNode("NS.object.\(i)"), state.pointee.builder.uid(Int(archiveObject(element.base))))
        }
    }
}
