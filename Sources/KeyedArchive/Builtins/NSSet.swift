/// The keyed archiver's writing of `NSSet` and `NSMutableSet` (`NS.objects`), of Swift sets held in an `Any`.
/// The class's names, its reading and its typedstream coding are in its ArchiveModel file
/// (`Foundation/Classes/NSSet.swift`).
extension KeyedArchiver {
    /// An `NSSet` of a set held in an `Any`, members in ``deterministicOrder(_:_:)``.
    func encodableSetObject(_ set: any ArchiveEncodableSet) -> Int32 {
        withObjectFrame(classUID: { classObject(.set) }) { setFields(set) }
    }

    /// The fields of an `NSSet` or `NSMutableSet` in the current frame, members in ``deterministicOrder(_:_:)``.
    func setFields(_ set: any ArchiveEncodableSet) {
        let members = set.archiveMembers.sorted(by: deterministicOrder)
        addField(keyNode("NS.objects"), uidArray(members.map { $0.base }))
    }

    /// An `NSSet` whose members are already in their order.
    func orderedMembersObject(_ set: OrderedArchiveSet) -> Int32 {
        withObjectFrame(classUID: { classObject(.set) }) { addField(keyNode("NS.objects"), uidArray(set.members)) }
    }
}
