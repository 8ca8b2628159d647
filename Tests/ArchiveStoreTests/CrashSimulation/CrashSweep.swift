import Foundation
import TestSupport
@testable import ArchiveStore

/// Runs one operation under the recorder, then checks every state a power cut at every point of it may leave
/// (``CrashModel``): each state is written out to a directory of its own and handed to the test's check.
///
/// `swift test` runs a bounded sweep (every crash point; every state where a point has few, else a few drawn
/// with the fixed seed); `CRASH_SWEEP=full` (see `Scripts/crash-sweep.sh`) runs the full one.
struct CrashSweep {
    struct Budget {
        /// A point with at most this many states has all of them checked...
        var exhaustive: Int
        /// ... else this many drawn at random, besides all-kept and all-dropped...
        var samples: Int
        /// ... and, when set, each uncertain call varied alone.
        var structured: Bool
    }

    static let seed: UInt64 = 28
    static var isFull: Bool { ProcessInfo.processInfo.environment["CRASH_SWEEP"] == "full" }
    static var budget: Budget {
        isFull ? Budget(exhaustive: 512, samples: 48, structured: true) : Budget(exhaustive: 4, samples: 2, structured: false)
    }

    /// What a sweep explored and found.
    struct Report: CustomStringConvertible {
        var operation: String
        var calls = 0
        var points = 0
        var states = 0
        var sampledPoints = 0
        var failures: [String] = []

        var description: String {
            "crash sweep \(operation): \(points) crash points, \(states) states (\(sampledPoints) points sampled, seed \(CrashSweep.seed)\(CrashSweep.isFull ? ", full" : "")), \(failures.count) failures"
        }
    }

    /// `setUp` writes the files before the operation below the root it is given (taken as durable); `operate`
    /// runs the operation on that root through the recording file system; `check` gets a crash state's root and
    /// whether the operation had returned at that point (acknowledged), and returns what is wrong with it.
    static func run(_ operation: String,
                    setUp: (String) throws -> Void,
                    operate: (String, FileSystem) throws -> Void,
                    check: (String, Bool) throws -> [String]) throws -> Report {
        let work = try TemporaryDirectory(prefix: "crash-sweep")
        let root = work.file("live")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try setUp(root)
        let (base, inodes) = try CrashImage.capture(root)
        let recorder = FileSystemRecorder(inodes: inodes)
        var returned = true
        do { try operate(root, recorder.recording()) } catch { returned = false }
        let calls = recorder.calls
        let model = CrashModel(base: base, calls: calls)
        var report = Report(operation: operation, calls: calls.count)
        var generator = SeededGenerator(seed: seed)
        let budget = budget
        var number = 0
        for point in 0...calls.count {
            let (states, sampled) = model.states(at: point, exhaustive: budget.exhaustive, samples: budget.samples,
                                                 structured: budget.structured, generator: &generator)
            report.points += 1
            if sampled { report.sampledPoints += 1 }
            let acknowledged = returned && point == calls.count
            for state in states {
                number += 1
                report.states += 1
                let stateRoot = work.file("state-\(number)")
                try state.image.materialize(into: stateRoot)
                defer { try? FileManager.default.removeItem(atPath: stateRoot) }
                var problems: [String]
                do { problems = try check(stateRoot, acknowledged) } catch { problems = ["the check threw \(error)"] }
                guard !problems.isEmpty else { continue }
                let cut = point == 0 ? "before any call" : "after call \(point) (\(calls[point - 1]))"
                let choices = state.choices.map { "\($0.call + 1) \($0.variant)" }.joined(separator: ", ")
                report.failures.append("\(operation), cut \(cut)\(acknowledged ? ", acknowledged" : ""), not kept: [\(choices)]: "
                                       + problems.joined(separator: "; "))
            }
        }
        print(report)
        return report
    }
}
