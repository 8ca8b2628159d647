import ArchiveStore
import Foundation
import Testing

/// The iOS app's model, archived here by the toolchain's Foundation `NSKeyedArchiver`.
final class FormModel: NSObject, NSCoding {
    let id: NSString
    let registerDatetime: NSDate
    let name: NSString

    init(id: String, registerDatetime: Date, name: String) {
        self.id = id as NSString
        self.registerDatetime = registerDatetime as NSDate
        self.name = name as NSString
    }

    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(registerDatetime, forKey: "registerDatetime")
        coder.encode(name, forKey: "name")
    }

    required init?(coder: NSCoder) { nil }
}

@Suite("formcache import of legacy FormModel archives made by Foundation")
struct LegacyImportTests {
    /// Archives `root` with Foundation, naming the model class `className`.
    func foundationArchive(_ root: Any, className: String) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.setClassName(className, for: FormModel.self)
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    @Test(arguments: ["FormModel", "Model.FormModel"])
    func importsASingleObject(className: String) throws {
        let harness = try Harness()
        let registered = Date(timeIntervalSince1970: 1_714_500_000)
        let file = PathParts.parent(harness.home) + "/single.archive"
        try foundationArchive(FormModel(id: "legacy-1", registerDatetime: registered, name: "Signup"), className: className)
            .write(to: URL(fileURLWithPath: file))
        let outcome = harness.run("import", file)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "legacy-1\n")
        #expect(outcome.stderr == "Imported 1 record.\n")
        let object = try #require(try jsonObject(harness.run("get", "legacy-1", "--json").stdout) as? [String: Any])
        #expect(object["name"] as? String == "Signup")
        #expect(object["registeredAt"] as? String == "2024-04-30T18:00:00Z")
        #expect(object["expiresAt"] as? String == "2024-05-30T18:00:00Z")
        #expect(object["fields"] as? [String: String] == [:])
    }

    @Test(arguments: ["FormModel", "Model.FormModel"])
    func importsAnArrayAndSkipsIdsAlreadyPresent(className: String) throws {
        let harness = try Harness()
        let models = (0..<3).map {
            FormModel(id: "m\($0)", registerDatetime: may1 - Double($0) * 86_400, name: "Form \($0)")
        }
        let file = PathParts.parent(harness.home) + "/array.archive"
        try foundationArchive(models as NSArray, className: className).write(to: URL(fileURLWithPath: file))
        #expect(harness.run("import", file).stdout == "m0\nm1\nm2\n")
        let again = harness.run("import", file)
        #expect(again.status == 0)
        #expect(again.stdout.isEmpty)
        #expect(again.stderr == "Imported 0 records; skipped 3 already present.\n")
        let listed = try #require(try jsonObject(harness.run("list", "--json").stdout) as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["Form 0", "Form 1", "Form 2"])
    }

    @Test func notALegacyArchiveExits65AndAMissingFileExits74() throws {
        let harness = try Harness()
        let file = PathParts.parent(harness.home) + "/other.archive"
        try NSKeyedArchiver.archivedData(withRootObject: ["just", "strings"] as NSArray, requiringSecureCoding: false)
            .write(to: URL(fileURLWithPath: file))
        let wrong = harness.run("import", file)
        #expect(wrong.status == 65)
        #expect(wrong.stderr.hasPrefix("Error: "))
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: file))
        #expect(harness.run("import", file).status == 65)
        #expect(harness.run("import", file + ".missing").status == 74)
        #expect(!FileManager.default.fileExists(atPath: harness.storePath))
    }
}
