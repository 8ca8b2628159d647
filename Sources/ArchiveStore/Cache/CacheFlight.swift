import ArchivePlatform

extension ArchiveCache {
    // MARK: Get or load

    /// The value for `key`, or, when there is none, the value `loader` makes, stored with `timeToLive`
    /// (the default when `nil`) and returned. Concurrent callers for one missing key on this cache object wait
    /// for a single call of `loader` and all receive its value or its error; a loader that throws stores
    /// nothing. A value that loaded but could not be stored (a full disk) is still returned.
    ///
    /// `loader` is `@Sendable` and hands over what it makes (`sending`): it may run on another executor than
    /// the caller's, and the value it returns becomes the cache's, shared with every waiter (for a value that
    /// is not `Sendable`, all of them are in the cache's one isolation domain).
    ///
    /// The stampede barrier of python-diskcache's `memoize`, within one cache object.
    public func value(forKey key: String, timeToLive: TimeToLive? = nil,
                      loader: @Sendable (String) async throws -> sending Value) async throws -> Value {
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
///
/// Requires of `Value`: that it be `Sendable`, or that the flight stay in one isolation domain. Its cache
/// guarantees that: an `ArchiveCache` is `Sendable` only when its `Value` is, so the tasks that wait on a
/// flight of a non-Sendable value all run in the cache's one domain.
final class CacheFlight<Value>: @unchecked Sendable { // Sendable: `state` only behind `Locked`; the value per the requirement above.
    /// Hands a loaded value from the task that loaded it to the tasks waiting for it (the same value to each,
    /// as the memory layer shares it; see the requirement on `Value`).
    final class Box: @unchecked Sendable { // Sendable: set once before it is shared; the value per CacheFlight's requirement.
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
