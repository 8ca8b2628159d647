import CommandLineSupport
import TypedStream

extension Verbs {
    /// The bytes of `path` as the verbs read them: a keyed archive (or any other file) as it is; a typedstream,
    /// known by its header, as the binary keyed archive it converts to, with the classes of the objects the
    /// stream holds (first use first). So `decode`, `dump`, `lint`, `audit`, `graph` and `diff` take both
    /// formats with no flag.
    /// - Throws: ``CommandFailure`` with ``ExitStatus/noInput`` when the file cannot be read, with
    ///   ``ExitStatus/dataError`` when the typedstream is malformed.
    static func archiveInput(_ path: String) throws -> (bytes: [UInt8], typedStreamClasses: [String]?) {
        let bytes = try InputFiles.readFile(path)
        guard TypedStreamHeader.isTypedStream(bytes) else { return (bytes, nil) }
        do {
            let converted = try TypedStreamConversion.keyedArchiveAndClasses(fromTypedStream: bytes)
            return (converted.keyed, converted.classes)
        } catch let error as TypedStreamError {
            throw dataError(path, error.description)
        }
    }
}
