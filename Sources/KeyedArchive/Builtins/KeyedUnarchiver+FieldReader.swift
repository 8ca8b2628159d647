/// The keyed unarchiver as the field reader the Foundation classes' files (`ArchiveModel/Foundation/Classes/`)
/// decode with; the fields themselves are read by `Unarchiving/KeyedUnarchiver+RawFields.swift`.
extension KeyedUnarchiver: KeyedFieldReader {
    package func invalidValue(_ reason: String) -> any Error { error(.invalidValue, reason) }

    package func decodeWholeObject() throws -> Any {
        let object = ArchivedObject(classChain: state.pointee.frame.classChain)
        try decodeAllFields(into: object)
        return object
    }
}
