import FormCache
import ArchiveStore
import CommandLineSupport
import Foundation
import TestSupport
@testable import FormCacheCLI

/// A clock the test sets by hand.
final class ManualClock: StoreClock, @unchecked Sendable { // Sendable: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ date: Date) { current = date }

    func now() -> Date { lock.withLock { current } }

    func set(_ date: Date) { lock.withLock { current = date } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// 2024-05-01T12:00:00Z.
let may1 = Date(timeIntervalSince1970: 1_714_564_800)

/// What one command printed and returned.
struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A temporary FORMCACHE_HOME and the `formcache` command run in-process against it.
final class Harness {
    /// HOME; removed with the harness.
    let directory: TemporaryDirectory
    let home: String
    let clock: ManualClock
    var environment: [String: String]

    init(clock: ManualClock = ManualClock(may1)) throws {
        directory = try TemporaryDirectory(prefix: "formcache-tests")
        home = directory.file("data")
        self.clock = clock
        environment = ["FORMCACHE_HOME": home, "HOME": directory.path]
    }

    var storePath: String { home + "/FormCache.cache" }

    @discardableResult
    func run(_ arguments: String...) -> Outcome { run(arguments) }

    /// Runs `formcache` with `arguments`, its store calls through `fileSystem`.
    func run(_ arguments: [String], fileSystem: FileSystem = .kernel) -> Outcome {
        let out = OutputCapture(), err = OutputCapture()
        let status = FormCacheTool.run(
            arguments: arguments, environment: environment, io: CommandIO(stdout: out.sink, stderr: err.sink), clock: clock,
            fileSystem: fileSystem)
        return Outcome(status: status, stdout: out.text, stderr: err.text)
    }

    /// Adds a record and returns its id (the whole stdout without the newline).
    func add(_ arguments: String...) -> String {
        let outcome = run(["add"] + arguments)
        return outcome.status == 0 ? String(outcome.stdout.dropLast()) : "add failed: \(outcome.stderr)"
    }

    func storeBytes() -> Data? { FileManager.default.contents(atPath: storePath) }
}

enum PathParts {
    static func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }
}

/// Parses JSON text printed by `formcache`.
func jsonObject(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}
