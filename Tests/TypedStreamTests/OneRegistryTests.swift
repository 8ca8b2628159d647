import KeyedArchive
import Testing
import TypedStream

/// A class that codes typedstreams only: it adopts no keyed coding protocol.
final class StreamOnlyNote: TypedStreamCodable {
    var text: String
    init(text: String) { self.text = text }
    init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
        text = try coder.decodeObject(of: String.self) ?? ""
    }
    func encode(with coder: TypedStreamArchiver) { coder.encodeObject(text) }
}

/// One `ClassRegistry` for both formats: a type registered once is read from the format it codes, and a
/// registered type that cannot read the format at hand is an unknown class that says why.
@Suite("One registry for both formats")
struct OneRegistryTests {
    @Test func aTypedStreamOnlyClassRegistersAndReads() throws {
        let bytes: [UInt8] = try TypedStreamArchiver.archivedData(withRootObject: StreamOnlyNote(text: "hello"))
        let note = try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: ClassRegistry([StreamOnlyNote.self]))
        #expect((note as? StreamOnlyNote)?.text == "hello")
    }

    @Test func theKeyedReaderRefusesATypedStreamOnlyClassAndSaysWhy() throws {
        // A keyed archive naming the class, written as an unknown-class object of that name.
        let standIn = ArchivedObject(classChain: ["StreamOnlyNote", "NSObject"], fields: [("text", .object("hello"))])
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: standIn)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofTypes: [StreamOnlyNote.self], from: bytes,
                                                     registry: ClassRegistry([StreamOnlyNote.self]))
        }
        #expect(error?.code == .unknownClass)
        #expect(error?.reason.contains("class \"StreamOnlyNote\" is registered but adopts neither KeyedArchivable nor ArchiveCodable") == true)
        // Not registered at all: the usual message.
        let unregistered = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofTypes: [StreamOnlyNote.self], from: bytes, registry: .standard)
        }
        #expect(unregistered?.code == .unknownClass)
        #expect(unregistered?.reason.contains("class \"StreamOnlyNote\" is not registered") == true)
    }
}
