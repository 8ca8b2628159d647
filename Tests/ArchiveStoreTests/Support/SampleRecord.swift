import ArchiveStore
import Foundation
import KeyedArchive

/// The record type of the store's own tests: a form-shaped record (an id, a name, string fields, two dates),
/// archived exactly as FormCache's `FormRecord` is (class name `FormRecord`, the same keys in the same order),
/// so that a store these tests write has the bytes and sizes a FormCache store of the same records has.
///
/// ArchiveStoreTests does not depend on FormCache (the layer above the store); FormCache's own record is
/// tested in FormCacheTests.
struct SampleRecord: ExpiringRecord, Hashable, Sendable {
    var id: String
    var name: String
    var fields: [String: String]
    var registeredAt: Date
    var expiresAt: Date

    init(id: String, name: String, fields: [String: String], registeredAt: Date, expiresAt: Date) {
        (self.id, self.name, self.fields, self.registeredAt, self.expiresAt) = (id, name, fields, registeredAt, expiresAt)
    }

    var expiryDate: Date? { expiresAt }

    static var archivedClassName: String { "FormRecord" }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(fields, forKey: "fields")
        coder.encode(registeredAt, forKey: "registeredAt")
        coder.encode(expiresAt, forKey: "expiresAt")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        fields = try coder.decode([String: String].self, forKey: "fields")
        registeredAt = try coder.decode(Date.self, forKey: "registeredAt")
        expiresAt = try coder.decode(Date.self, forKey: "expiresAt")
    }
}
