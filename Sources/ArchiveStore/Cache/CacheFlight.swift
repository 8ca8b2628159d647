import ArchivePlatform

extension ArchiveCache {
    // MARK: Get or load

    /// The value for `key`, or, when there is none, the value `loader` makes, stored with `timeToLive`
    /// (the default when `nil`) and returned. Concurrent callers for one missing key in this process wait
    /// for a single call of `loader` and all receive its value or its error; a loader that throws stores
    /// nothing. A value that loaded but could not be stored (a full disk) is still returned.
    ///
    /// The stampede barrier of python-diskcache's `memoize`, within one process.
    public func value(forKey key: String, timeToLive: TimeToLive? = nil,
                      loader: (String) async throws -> Value) async throws -> Value {
        if let value = try value(forKey: key) { return value }
        let cacheKey = CacheKey(key)
        let (flight, leads) = flights.withLock { f -> (CacheFlight<Value>, Bool) in
            if let existing = f[cacheKey] { return (existing, false) }
            let flight = CacheFlight<Value>()
            f[cacheKey] = flight
            return (flight, true)
        }
        guard leads else { return try await flight.wait().value }
        let result: Result<CacheFlight<Value>.Box, any Error>
        do {
            if let value = try value(forKey: key) {
                result = .success(CacheFlight.Box(value))
            } else {
                let value = try await loader(key)
                try? store(value, forKey: key, timeToLive: timeToLive ?? options.defaultTimeToLive)
                result = .success(CacheFlight.Box(value))
            }
        } catch {
            result = .failure(error)
        }
        flights.withLock { $0[cacheKey] = nil }
        flight.finish(result)
        return try result.get().value
    }
}

/// One load in flight for a key of an ``ArchiveCache``: the task that loads finishes it; the tasks that
/// asked meanwhile wait for its result.
final class CacheFlight<Value>: @unchecked Sendable { // Sendable: state only behind `Locked`.
    /// Hands a loaded value from the task that loaded it to the tasks waiting for it.
    final class Box: @unchecked Sendable { // Sendable: the value is handed over once, as NSCache shares instances.
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private enum State {
        case waiting([CheckedContinuation<Box, any Error>])
        case done(Result<Box, any Error>)
    }

    private let state = Locked(State.waiting([]))

    func wait() async throws -> Box {
        try await withCheckedThrowingContinuation { continuation in
            let done = state.withLock { s -> Result<Box, any Error>? in
                switch s {
                case .done(let result): return result
                case .waiting(var list):
                    list.append(continuation)
                    s = .waiting(list)
                    return nil
                }
            }
            if let done { continuation.resume(with: done) }
        }
    }

    func finish(_ result: Result<Box, any Error>) {
        let waiting = state.withLock { s -> [CheckedContinuation<Box, any Error>] in
            guard case .waiting(let list) = s else { return [] }
            s = .done(result)
            return list
        }
        for continuation in waiting { continuation.resume(with: result) }
    }
}
