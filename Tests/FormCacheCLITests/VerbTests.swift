import FormCache
import ArchiveStore
import CommandLineSupport
import Foundation
import FormCacheCLI
import Testing

@Suite("formcache verbs, in process")
struct VerbTests {
    @Test func addPrintsTheNewIdAloneAndGetJSONShowsTheRecord() throws {
        let harness = try Harness()
        let added = harness.run("add", "--name", "signup", "--field", "email=a@b.c", "--field", "plan=pro=1")
        #expect(added.status == 0)
        #expect(added.stderr.isEmpty)
        let id = String(added.stdout.dropLast())
        #expect(added.stdout == id + "\n")
        #expect(UUID(uuidString: id) != nil)

        let got = harness.run("get", id, "--json")
        #expect(got.status == 0)
        let object = try #require(try jsonObject(got.stdout) as? [String: Any])
        #expect(object["id"] as? String == id)
        #expect(object["name"] as? String == "signup")
        #expect(object["fields"] as? [String: String] == ["email": "a@b.c", "plan": "pro=1"])
        #expect(object["registeredAt"] as? String == "2024-05-01T12:00:00Z")
        #expect(object["expiresAt"] as? String == "2024-05-31T12:00:00Z")
        #expect(got.stdout.hasPrefix("{\"id\": "))
    }

    @Test func addWithIdAndTimeToLive() throws {
        let harness = try Harness()
        #expect(harness.run("add", "--name", "n", "--id", "custom-1", "--ttl", "90m").stdout == "custom-1\n")
        let object = try #require(try jsonObject(harness.run("get", "custom-1", "--json").stdout) as? [String: Any])
        #expect(object["expiresAt"] as? String == "2024-05-01T13:30:00Z")
    }

    @Test func getWithoutJSONPrintsReadableDetail() throws {
        let harness = try Harness()
        let id = harness.add("--name", "signup", "--field", "b=2", "--field", "a=1")
        let text = harness.run("get", id).stdout
        #expect(text == """
            id:            \(id)
            name:          signup
            registered at: 2024-05-01T12:00:00Z
            expires at:    2024-05-31T12:00:00Z
            fields:
              a = 1
              b = 2

            """)
    }

    @Test func addingATakenIdFailsWithStatus1AndAHint() throws {
        let harness = try Harness()
        _ = harness.add("--name", "a", "--id", "same")
        let second = harness.run("add", "--name", "b", "--id", "same")
        #expect(second.status == 1)
        #expect(second.stdout.isEmpty)
        #expect(second.stderr.hasPrefix("Error: "))
        #expect(second.stderr.contains("Hint: "))
    }

    @Test(arguments: [
        ["add"], ["add", "--name", ""], ["add", "--name", "n", "--ttl", "5w"], ["add", "--name", "n", "--ttl", "0s"],
        ["add", "--name", "n", "--field", "novalue"], ["add", "--name", "n", "--field", "=v"],
        ["add", "--name", "n", "--field", "k=1", "--field", "k=2"], ["add", "--name", "n", "--id", "a\u{1}b"],
        ["get"], ["get", "a", "b"], ["list", "--bogus"], ["purge", "extra"], ["bogus"], [], ["remove"], ["import"],
    ])
    func usageErrorsExit64WithUsageOnStderr(arguments: [String]) throws {
        let harness = try Harness()
        let outcome = harness.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(outcome.stderr.contains("Usage: formcache"))
        #expect(!FileManager.default.fileExists(atPath: harness.home))
    }

    @Test func getOfUnknownIdExits1() throws {
        let harness = try Harness()
        let outcome = harness.run("get", "nope")
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("Error: "))
        #expect(outcome.stderr.contains("'nope'"))
    }

    @Test func expiredRecordIsNeverReturnedEvenBeforePurge() throws {
        let harness = try Harness()
        let id = harness.add("--name", "short", "--ttl", "45s")
        harness.clock.advance(by: 44)
        #expect(harness.run("get", id).status == 0)
        harness.clock.advance(by: 1)
        let expired = harness.run("get", id, "--json")
        #expect(expired.status == 1)
        #expect(expired.stdout.isEmpty)
        #expect(expired.stderr.contains("expired"))
        #expect((try jsonObject(harness.run("list", "--json").stdout) as? [Any])?.isEmpty == true)
        let all = try #require(try jsonObject(harness.run("list", "--json", "--include-expired").stdout) as? [[String: Any]])
        #expect(all.map { $0["id"] as? String } == [id])
    }

    @Test func aClockThatStepsBackNeverExpiresARecordEarly() throws {
        let harness = try Harness()
        let id = harness.add("--name", "n", "--ttl", "1h")
        harness.clock.set(may1 - 86_400 * 365)
        #expect(harness.run("get", id).status == 0)
        #expect(harness.run("purge").stdout.isEmpty)
        harness.clock.set(may1 + 3_599)
        #expect(harness.run("get", id).status == 0)
        harness.clock.set(may1 + 3_600)
        #expect(harness.run("get", id).status == 1)
    }

    @Test func listPrintsATableOfLiveRecords() throws {
        let harness = try Harness()
        _ = harness.add("--name", "first", "--id", "r1", "--field", "k=v")
        _ = harness.add("--name", "second", "--id", "r2", "--ttl", "1m")
        harness.clock.advance(by: 120)
        #expect(harness.run("list").stdout == """
            ID  NAME   EXPIRES AT            FIELDS
            r1  first  2024-05-31T12:00:00Z  k=v

            """)
        #expect(harness.run("list", "--include-expired").stdout == """
            ID  NAME    EXPIRES AT                      FIELDS
            r1  first   2024-05-31T12:00:00Z            k=v
            r2  second  2024-05-01T12:01:00Z (expired)

            """)
    }

    @Test func listOfAnEmptyStoreSaysSoOnStderrOnly() throws {
        let harness = try Harness()
        let outcome = harness.run("list")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr == "No records.\n")
        #expect(harness.run("list", "--json").stdout == "[]\n")
        #expect(!FileManager.default.fileExists(atPath: harness.home))
    }

    @Test func listJSONIsAnArrayInInsertionOrderWithEscapedStrings() throws {
        let harness = try Harness()
        _ = harness.add("--name", "quote\"back\\slash", "--id", "a")
        _ = harness.add("--name", "line\nbreak", "--id", "b", "--field", "tab=\t")
        let array = try #require(try jsonObject(harness.run("list", "--json").stdout) as? [[String: Any]])
        #expect(array.map { $0["id"] as? String } == ["a", "b"])
        #expect(array.map { $0["name"] as? String } == ["quote\"back\\slash", "line\nbreak"])
        #expect(array[1]["fields"] as? [String: String] == ["tab": "\t"])
    }

    @Test func removeDeletesOnceThenExits1() throws {
        let harness = try Harness()
        let id = harness.add("--name", "n")
        let removed = harness.run("remove", id)
        #expect(removed.status == 0)
        #expect(removed.stdout.isEmpty)
        #expect(harness.run("get", id).status == 1)
        #expect(harness.run("remove", id).status == 1)
    }

    @Test func purgeRemovesOnlyExpiredRecordsAndPrintsTheirIds() throws {
        let harness = try Harness()
        _ = harness.add("--name", "a", "--id", "short", "--ttl", "1h")
        _ = harness.add("--name", "b", "--id", "long", "--ttl", "2d")
        harness.clock.advance(by: 7_200)
        let dryRun = harness.run("purge", "--dry-run")
        #expect(dryRun.status == 0)
        #expect(dryRun.stdout == "short\n")
        #expect(dryRun.stderr == "Would remove 1 record.\n")
        #expect(harness.run("list", "--include-expired", "--json").stdout.contains("\"short\""))
        let purged = harness.run("purge")
        #expect(purged.stdout == "short\n")
        #expect(purged.stderr == "Removed 1 record.\n")
        #expect(!harness.run("list", "--include-expired", "--json").stdout.contains("\"short\""))
        #expect(harness.run("get", "long").status == 0)
        #expect(harness.run("purge", "--all").stdout == "long\n")
        #expect(harness.run("list", "--json", "--include-expired").stdout == "[]\n")
    }

    @Test func pathPrintsTheDataDirectoryWithoutCreatingIt() throws {
        let harness = try Harness()
        #expect(harness.run("path").stdout == harness.home + "\n")
        harness.environment = ["XDG_DATA_HOME": "/xdg/data", "HOME": "/home/u"]
        #if !os(macOS)
        #expect(harness.run("path").stdout == "/xdg/data/formcache\n")
        harness.environment = ["HOME": "/home/u"]
        #expect(harness.run("path").stdout == "/home/u/.local/share/formcache\n")
        #endif
        #expect(!FileManager.default.fileExists(atPath: harness.home))
    }

    @Test func helpAndVersion() throws {
        let harness = try Harness()
        let help = harness.run("--help")
        #expect(help.status == 0)
        for section in ["OVERVIEW:", "USAGE: formcache <subcommand>", "SUBCOMMANDS:"] {
            #expect(help.stdout.contains(section))
        }
        for verb in ["add", "get", "list", "remove", "purge", "import", "path", "move-aside"] {
            #expect(help.stdout.contains("\n  \(verb) "))
        }
        let addHelp = harness.run("help", "add")
        #expect(addHelp.status == 0)
        #expect(addHelp.stdout.contains("USAGE: formcache add --name <name>"))
        #expect(addHelp.stdout.contains("--ttl <duration>"))
        #expect(harness.run("add", "--help").stdout == addHelp.stdout)
        #expect(harness.run("help", "nope").status == 64)
        #expect(harness.run("--version").stdout == PackageVersion.current + "\n")
    }

    @Test func environmentLockTimeoutMustBeANumber() throws {
        let harness = try Harness()
        harness.environment["FORMCACHE_LOCK_TIMEOUT"] = "soon"
        #expect(harness.run("list").status == 64)
    }
}
