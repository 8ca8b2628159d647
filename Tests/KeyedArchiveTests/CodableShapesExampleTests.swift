import Foundation
import KeyedArchive
import Testing
import TestSupport

/// Runs the built `shapes-example` product and checks what it prints and the archive it leaves.
@Suite("Codable bridge: the shapes-example executable")
struct CodableShapesExampleTests {
    /// The built `shapes-example`: next to the test bundle, or in the package's `.build/debug`.
    static func executable() -> URL? {
        let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            besideBundle.appendingPathComponent("shapes-example"),
            besideBundle.deletingLastPathComponent().appendingPathComponent("shapes-example"),
            package.appendingPathComponent(".build/debug/shapes-example"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try #require(executable(), "build the shapes-example product first")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test func printsEachRestoredShapeByItsConcreteTypeAndLeavesAKeyedArchive() throws {
        let directory = try TemporaryDirectory(prefix: "shapes")
        defer { directory.remove() }
        let path = directory.file("shapes.archive")
        let result = try Self.run([path])
        #expect(result.status == 0 && result.stderr.isEmpty)
        #expect(result.stdout.split(separator: "\n") == [
            "Circle(center: (10.0, 20.0), radius: 30.0)",
            "Rectangle(origin: (40.0, 50.0), size: 60.0 x 70.0)",
            "RoundedRectangle(origin: (1.0, 2.0), size: 3.0 x 4.0, cornerRadius: 5.0)",
        ])
        // An ordinary keyed archive: the NSCoding-style API reads its classes, chains and keys.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let root = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ArchivedObject.self, from: bytes, registry: ClassRegistry.standard.allowingUnknownClasses()))
        #expect(root.className == "Contents")
        guard case .object(let shapes as [Any])? = root["shapes"] else { Issue.record("no shapes array"); return }
        let objects = shapes.compactMap { $0 as? ArchivedObject }
        #expect(objects.map(\.classChain) == [["Circle", "NSObject"], ["Rectangle", "NSObject"],
                                              ["RoundedRectangle", "Rectangle", "NSObject"]])
        #expect(Set(objects[2].fields.map(\.key)) == ["cornerRadius", "origin", "size"])
    }

    @Test func missingArgumentIsAUsageError() throws {
        let result = try Self.run([])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: ") && result.stdout.isEmpty)
    }

    @Test func unwritablePathFailsWithAnError() throws {
        let result = try Self.run(["/nonexistent-directory/shapes.archive"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: ") && result.stdout.isEmpty)
    }
}
