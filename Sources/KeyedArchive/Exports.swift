// The object model both NSCoding formats share (the `Archived*` values, `ArchivableClass`, `ClassRegistry`,
// `ArchivedClassKind`) is part of this module's API: a program that imports KeyedArchive uses them without a
// second import.
@_exported import ArchiveModel
