import ArchiveStore

/// What a `ProgressHandler` was told, in order (shared by the store's and FormCache's progress tests).
public final class ProgressLog {
    public private(set) var calls: [(completed: Int, total: Int?)] = []
    public var handler: ProgressHandler { { [self] completed, total in calls.append((completed, total)) } }

    public init() {}

    public var completed: [Int] { calls.map(\.completed) }
    public var totals: Set<Int?> { Set(calls.map(\.total)) }
    /// Whether `completed` never goes back.
    public var isMonotonic: Bool { zip(completed, completed.dropFirst()).allSatisfy { $0 <= $1 } }
}
