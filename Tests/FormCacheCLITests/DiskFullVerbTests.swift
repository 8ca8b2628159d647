import ArchivePlatform
import ArchiveStore
import Foundation
import Testing
import TestSupport
@testable import FormCacheCLI

/// A disk that fills during any verb that writes, at any write (a short write, then `ENOSPC` on every
/// write): the verb exits 0 (done) or 74 (not done), and then every verb reads the store as it was before or
/// after, with no `recover`; the next add works.
@Suite("formcache: a full disk during every verb")
struct DiskFullVerbTests {
    enum Verb: String, CaseIterable {
        case firstAdd, add, update, remove, purge, importArchive, export
    }

    /// The store before the verb, and the verb's arguments.
    static func setUp(_ verb: Verb, _ harness: Harness) throws -> [String] {
        let export = harness.directory.file("export.archive")
        if verb == .firstAdd { return ["add", "--name", "first", "--id", "f"] }
        #expect(harness.run("add", "--name", "one", "--id", "r1", "--field", "k=v").status == 0)
        #expect(harness.run("add", "--name", "two", "--id", "r2", "--ttl", "1m").status == 0)
        switch verb {
        case .firstAdd: return []
        case .add: return ["add", "--name", "three", "--id", "r3"]
        case .update: return ["update", "r1", "--name", "uno"]
        case .remove: return ["remove", "r2"]
        case .purge:
            harness.clock.advance(by: 120)
            return ["purge"]
        case .importArchive:
            let other = try Harness()
            #expect(other.run("add", "--name", "imported", "--id", "i1").status == 0)
            #expect(other.run("export", export).status == 0)
            return ["import", export]
        case .export:
            return ["export", export]
        }
    }

    @Test(arguments: Verb.allCases)
    func aDiskThatFillsAtAnyWriteLeavesTheStoreReadableByEveryVerbWithNoRecovery(verb: Verb) throws {
        // Without a fault: what the store holds after the verb.
        let reference = try Harness()
        let arguments = try Self.setUp(verb, reference)
        let before = reference.run("list", "--json").stdout
        #expect(reference.run(arguments).status == 0)
        let after = reference.run("list", "--json").stdout
        var fullAt = 1
        var outcomes: Set<Int32> = []
        while true {
            let harness = try Harness()
            let arguments = try Self.setUp(verb, harness)
            let disk = FillingDisk()
            disk.arm(fullAt: fullAt)
            let outcome = harness.run(arguments, fileSystem: disk.fileSystem)
            guard disk.filled != nil else {
                #expect(outcome.status == 0, "\(verb): \(outcome.stderr)")
                break
            }
            let context = "\(verb), the disk full at write \(fullAt) (\(disk.filled ?? ""))"
            #expect(outcome.status == 0 || outcome.status == 74, "\(context): status \(outcome.status): \(outcome.stderr)")
            outcomes.insert(outcome.status)
            let list = harness.run("list", "--json")
            #expect(list.status == 0, "\(context): \(list.stderr)")
            if verb == .export {
                #expect(list.stdout == before, "\(context)")
            } else {
                #expect(list.stdout == (outcome.status == 0 ? after : before), "\(context): \(list.stdout)")
            }
            if verb != .firstAdd || outcome.status == 0 {
                let get = harness.run("get", verb == .firstAdd ? "f" : "r1")
                #expect(get.status == 0, "\(context): \(get.stderr)")
            }
            #expect(harness.run("add", "--name", "next", "--id", "next").status == 0, "\(context)")
            #expect(harness.run("get", "next").status == 0, "\(context)")
            fullAt += 1
        }
        #expect(outcomes.contains(74), "\(verb): the disk filled at \(fullAt - 1) writes")
    }
}
