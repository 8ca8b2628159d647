// The object model both NSCoding formats share (`ClassRegistry`, `ArchivableClass`, the `Archived*` values)
// is part of this module's API: a program that imports TypedStream registers and reads classes without a
// second import.
@_exported import ArchiveModel
