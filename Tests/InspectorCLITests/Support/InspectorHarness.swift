import CommandLineSupport
import Foundation
import InspectorCLI
import Testing
import TestSupport

/// The repository's `Fixtures/` folder, located from this source file.
let fixtures = RepositoryFixtures.root

/// The path of a file below `Fixtures/`.
func fixture(_ path: String) -> String { RepositoryFixtures.path(path) }

/// What one in-process run of the inspector did.
struct Outcome {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `keyedarchive` with `arguments` in-process, capturing both streams.
func inspect(_ arguments: [String]) -> Outcome {
    let out = OutputCapture()
    let err = OutputCapture()
    let status = Inspector.run(arguments: arguments, environment: [:], io: CommandIO(stdout: out.sink, stderr: err.sink))
    return Outcome(status: status, stdout: out.bytes, stderr: err.text)
}

/// Expects `arguments` to be a usage error: status 64, nothing on stdout, `Error: ...`, the verb's usage and
/// the `--help` hint on stderr.
func expectUsageError(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let result = inspect(arguments)
    #expect(result.status == ExitStatus.usage, sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("Error: "), sourceLocation: sourceLocation)
    #expect(result.stderr.contains("\nUsage: keyedarchive "), sourceLocation: sourceLocation)
    #expect(result.stderr.contains("--help' for more information.\n"), sourceLocation: sourceLocation)
}
