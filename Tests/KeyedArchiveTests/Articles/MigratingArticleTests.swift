// Mirrors Sources/KeyedArchive/KeyedArchive.docc/MigratingFromNSKeyedArchiver.md (see ArticleCode in TestSupport)
import BinaryPlist
import Foundation
import KeyedArchive
import Testing

@Suite("Article: Migrating from NSKeyedArchiver and NSCoding")
struct MigratingArticleTests {
    // snippet
    final class Contact: KeyedArchivable {
        var name: String
        var emails: [String]
        var birthday: Date?
        var manager: Contact?

        init(name: String, emails: [String] = [], birthday: Date? = nil, manager: Contact? = nil) {
            (self.name, self.emails, self.birthday, self.manager) = (name, emails, birthday, manager)
        }

        init(coder: KeyedUnarchiver) throws {
            name = try coder.decode(String.self, forKey: "name")
            emails = try coder.decode([String].self, forKey: "emails")
            birthday = try coder.decodeIfPresent(Date.self, forKey: "birthday")
            manager = try coder.decodeIfPresent(Contact.self, forKey: "manager")
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(name, forKey: "name")
            coder.encode(emails, forKey: "emails")
            coder.encode(birthday, forKey: "birthday")
            coder.encode(manager, forKey: "manager")
        }
    }
    // end snippet

    /// An archive as the Objective-C runtime names a Swift class without `@objc(Name)`: module-qualified.
    static func appleStyleArchive(_ contacts: [Contact], className: String = "MyApp.Contact") throws -> [UInt8] {
        let archiver = KeyedArchiver()
        archiver.setClassName(className, for: Contact.self)
        archiver.encodeObject(contacts, forKey: "root")
        return try archiver.finishEncoding()
    }

    @Test func aModuleQualifiedNameAndAnOldNameBothFindTheType() throws {
        let ada = Contact(name: "Ada", emails: ["ada@example.com"], birthday: Date(timeIntervalSince1970: 0))
        let bytes = try Self.appleStyleArchive([ada, Contact(name: "Charles", manager: ada)])
        // snippet
        let registry = ClassRegistry([Contact.self])
        let contacts = try KeyedUnarchiver.unarchivedObject(ofType: [Contact].self, from: bytes, registry: registry)
        // end snippet
        let restored = try #require(contacts)
        #expect(restored.map(\.name) == ["Ada", "Charles"])
        #expect(restored[0].emails == ["ada@example.com"])
        #expect(restored[0].birthday == Date(timeIntervalSince1970: 0))
        #expect(restored[1].manager === restored[0])
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.objects.indices.compactMap { graph.classChain(of: $0) }.contains(["MyApp.Contact", "NSObject"]))

        let old = try Self.appleStyleArchive([ada], className: "Person")
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: [Contact].self, from: old, registry: registry)
        }
        // snippet
        let renamed = ClassRegistry([Contact.self]).renaming("Person", to: Contact.self)
        // end snippet
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Contact].self, from: old, registry: renamed)?.first?.name == "Ada")
    }

    @Test func theArchiverStepByStep() throws {
        let ada = Contact(name: "Ada")
        // snippet
        let archiver = KeyedArchiver(outputFormat: .xml)
        archiver.encode(ada, forKey: "root")
        archiver.encode(Date(timeIntervalSince1970: 0), forKey: "savedAt")
        let xml: [UInt8] = try archiver.finishEncoding()

        let savedAt = try KeyedUnarchiver.withUnarchiver(for: xml, registry: ClassRegistry([Contact.self])) { unarchiver in
            try unarchiver.decodeTopLevelObject(of: Date.self, forKey: "savedAt")
        }
        // end snippet
        #expect(savedAt == Date(timeIntervalSince1970: 0))
        #expect(String(decoding: xml.prefix(5), as: UTF8.self) == "<?xml")
        #expect(try ArchiveGraph(bytes: xml).top.keys == [.string("root"), .string("savedAt")])
    }

    @Test func aListOfTypesForOneKey() throws {
        final class Holder: KeyedArchivable {
            var attachment: Any?
            init(attachment: Any?) { self.attachment = attachment }
            // snippet
            init(coder: KeyedUnarchiver) throws {
                attachment = try coder.decodeIfPresent(Any.self, forKey: "attachment", allowedTypes: [Contact.self, URL.self])
            }
            // end snippet
            func encode(with coder: KeyedArchiver) { coder.encodeObject(attachment, forKey: "attachment") }
        }
        let registry = ClassRegistry([Holder.self, Contact.self])
        let url = URL(string: "https://example.com/a")!
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Holder(attachment: url))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: bytes, registry: registry)?.attachment as? URL == url)
        let contact: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Holder(attachment: Contact(name: "Ada")))
        #expect((try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: contact, registry: registry)?.attachment as? Contact)?.name == "Ada")
        let other: [UInt8] = try KeyedArchiver.archivedData(withRootObject: Holder(attachment: Holder(attachment: nil)))
        let refused = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: other, registry: registry)
        }
        #expect(refused?.code == .classNotAllowed)
    }

    // snippet
    final class Folder: KeyedArchivable {
        let name: String
        var children: [Folder] = []
        weak var parent: Folder?

        init(name: String, parent: Folder? = nil) {
            self.name = name
            self.parent = parent
            parent?.children.append(self)
        }

        init(coder: KeyedUnarchiver) throws {
            name = try coder.decode(String.self, forKey: "name")
            children = try coder.decode([Folder].self, forKey: "children")
            try coder.decodeDeferred(Folder.self, forKey: "parent") { [unowned self] in self.parent = $0 }
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(name, forKey: "name")
            coder.encode(children, forKey: "children")
            coder.encodeConditionalObject(parent, forKey: "parent")
        }
    }
    // end snippet

    /// `Folder` reading its parent with `decode` instead of `decodeDeferred`.
    final class EagerFolder: KeyedArchivable {
        static var archivedClassName: String { "Folder" }
        var children: [EagerFolder] = []
        var parent: EagerFolder?
        init(coder: KeyedUnarchiver) throws {
            children = try coder.decode([EagerFolder].self, forKey: "children")
            parent = try coder.decodeIfPresent(EagerFolder.self, forKey: "parent")
        }
        func encode(with coder: KeyedArchiver) {}
    }

    @Test func aCycleIsReadWithADeferredDecode() throws {
        let root = Folder(name: "root")
        _ = Folder(name: "docs", parent: root)
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: root)
        let restored = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Folder.self, from: bytes, registry: ClassRegistry([Folder.self])))
        #expect(restored.children.map(\.name) == ["docs"])
        #expect(restored.children[0].parent === restored)
        #expect(restored.parent == nil)

        let cycle = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: EagerFolder.self, from: bytes, registry: ClassRegistry([EagerFolder.self]))
        }
        #expect(cycle?.code == .cycle)
    }

    // snippet
    final class Palette: KeyedArchiveSubstituting, Sendable {
        static let standard = Palette(name: "Standard")
        let name: String

        init(name: String) { self.name = name }
        init(coder: KeyedUnarchiver) throws { name = try coder.decode(String.self, forKey: "name") }
        func encode(with coder: KeyedArchiver) { coder.encode(name, forKey: "name") }

        func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any? {
            name == Palette.standard.name ? Palette.standard : self
        }
    }
    // end snippet

    @Test func aDecodedSingletonIsTheSharedInstance() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: [Palette.standard, Palette(name: "Mine")])
        let palettes = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Palette].self, from: bytes, registry: ClassRegistry([Palette.self])))
        #expect(palettes[0] === Palette.standard)
        #expect(palettes[1] !== Palette.standard && palettes[1].name == "Mine")
    }

    @Test func theDelegateHooksAreClosures() throws {
        let ada = Contact(name: "Ada", emails: ["ada@example.com"])
        // snippet
        let archiver = KeyedArchiver()
        archiver.willEncode = { object in
            guard let email = object as? String, email.contains("@") else { return object }
            return "(hidden)"
        }
        archiver.encode(ada, forKey: "root")
        let redacted: [UInt8] = try archiver.finishEncoding()
        // end snippet
        let restored = try KeyedUnarchiver.unarchivedObject(ofType: Contact.self, from: redacted, registry: ClassRegistry([Contact.self]))
        #expect(restored?.name == "Ada" && restored?.emails == ["(hidden)"])

        // snippet
        let shouted = try KeyedUnarchiver.withUnarchiver(for: redacted, registry: ClassRegistry([Contact.self])) { unarchiver in
            unarchiver.didDecode = { object in (object as? String)?.uppercased() ?? object }
            return try unarchiver.decodeTopLevelObject(of: Contact.self, forKey: "root")
        }
        // end snippet
        #expect(shouted?.name == "ADA" && shouted?.emails == ["(HIDDEN)"])
    }

    @Test func numbersKeepTheirKind() throws {
        let bytes: [UInt8] = try KeyedArchiver.archivedData(withRootObject: [1, 1.0, true] as [Any])
        let values = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: bytes))
        #expect(values.map { "\(type(of: $0))" } == ["Int", "Double", "Bool"])
        let objects = try #require(try PropertyList.decode(bytes)["$objects"]?.arrayValue)
        #expect(objects.filter { $0 == 1 || $0 == 1.0 || $0 == true } == [1, 1.0, true])
    }

    @Test func anUnknownClassCanBeResolvedByAFallback() throws {
        let bytes = try Self.appleStyleArchive([Contact(name: "Ada")], className: "Employee")
        // snippet
        let lenient = ClassRegistry([Contact.self]).resolvingUnknownClasses { className, classChain in
            className.hasSuffix("Employee") ? Contact.self : nil
        }
        // end snippet
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Contact].self, from: bytes, registry: lenient)?.first?.name == "Ada")
    }
}
