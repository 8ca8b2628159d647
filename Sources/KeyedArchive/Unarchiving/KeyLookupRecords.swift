import BinaryPlist

/// The key lookups of a recent object of one class, replayed for the next objects of that class whose
/// dictionaries hold the same key objects in the same order.
///
/// ``KeyedUnarchiver/position(ofRawKey:)`` finds a key from the dictionary's key objects, the key strings they
/// hold, the position just after the last key found and which key objects are known to hold which names.
/// Two dictionaries with the same key objects at the same positions hold the same key strings there, and an
/// object of the same class usually asks for the same keys in the same order: from its first request on,
/// the same requests then find the same positions (or the same absence), since a name's known key object,
/// once set, never changes. So each answer is kept with its key in request order, and an object whose key
/// objects are the recorded ones gets them back, checking each request's key against the recorded one; at
/// the first request that differs, or once the record is taken over by another object, the rest of that
/// object's lookups take the general path.
struct KeyLookupRecord {
    /// The recorded object's key objects, in dictionary order.
    var keyObjects: [Int] = []
    /// Per request of the recorded object, in order: the raw key asked for, the position found (-1: missing)
    /// and whether the raw key begins with "$" (so a user key equal to it is not that raw key: see
    /// ``KeyedUnarchiver/replayedPosition(ofUserKey:)``).
    var answers: [(key: String, position: Int, dollar: Bool)] = []
    /// Changed each time the record is restarted, so that a frame replaying or recording it notices.
    var generation = 0
    /// The decode counter when the record was last matched or restarted (the older of a class's two is
    /// restarted).
    var lastUse = 0
}

extension KeyedUnarchiver {
    /// Records per class slot (the last two key-object sets of each class: objects with and without an
    /// optional key alternate).
    private static var recordsPerSlot: Int { 2 }

    /// Sets up the current frame (an object of class slot `slot`) to replay a record whose key objects are
    /// its own, or to record its lookups into the older of its class's records.
    @inline(__always)
    func beginKeyLookups(slot: Int) {
        let fields = state.pointee.frame.fields
        let n = fields.count
        let first = slot * Self.recordsPerSlot
        if state.pointee.keyLookups.count < first + Self.recordsPerSlot {
            state.pointee.keyLookups.append(contentsOf: repeatElement(KeyLookupRecord(),
                count: first + Self.recordsPerSlot - state.pointee.keyLookups.count))
        }
        state.pointee.lookupClock += 1
        var oldest = first
        for r in first..<(first + Self.recordsPerSlot) {
            if state.pointee.keyLookups[r].lastUse < state.pointee.keyLookups[oldest].lastUse { oldest = r }
            guard state.pointee.keyLookups[r].keyObjects.count == n, n > 0 else { continue }
            var same = true
            for i in 0..<n where state.pointee.keyLookups[r].keyObjects[i] != reader.uncheckedKeyReference(fields, i) {
                same = false
                break
            }
            guard same else { continue }
            state.pointee.keyLookups[r].lastUse = state.pointee.lookupClock
            state.pointee.frame.lookupRecord = r
            state.pointee.frame.lookupGeneration = state.pointee.keyLookups[r].generation
            state.pointee.frame.replaying = true
            return
        }
        state.pointee.keyLookups[oldest].generation += 1
        state.pointee.keyLookups[oldest].lastUse = state.pointee.lookupClock
        state.pointee.keyLookups[oldest].answers.removeAll(keepingCapacity: true)
        state.pointee.keyLookups[oldest].keyObjects.removeAll(keepingCapacity: true)
        for i in 0..<n { state.pointee.keyLookups[oldest].keyObjects.append(reader.uncheckedKeyReference(fields, i)) }
        state.pointee.frame.lookupRecord = oldest
        state.pointee.frame.lookupGeneration = state.pointee.keyLookups[oldest].generation
        state.pointee.frame.replaying = false
    }

    /// The recorded answer to request `request` for `key` when the current frame replays a record that
    /// still holds it: `.some(position or nil)`; `nil` when the general path must decide (the frame then stops
    /// replaying).
    @inline(__always)
    func replayedPosition(ofRawKey key: String, request: Int) -> Int?? {
        let r = state.pointee.frame.lookupRecord
        if state.pointee.keyLookups[r].generation == state.pointee.frame.lookupGeneration,
           request < state.pointee.keyLookups[r].answers.count, state.pointee.keyLookups[r].answers[request].key == key {
            let position = state.pointee.keyLookups[r].answers[request].position
            guard position >= 0 else { return .some(nil) }
            state.pointee.frame.hint = position + 1
            return .some(position)
        }
        state.pointee.frame.lookupRecord = -1
        return nil
    }

    /// The recorded answer for the user key `key` when the current frame replays a record whose next request
    /// was for the same raw key, `key` itself (a recorded raw key that does not begin with "$" is the raw key
    /// of a user key only when it is that key): `.some(position or nil)`, the request counted. `nil` leaves
    /// everything as it was, for ``position(ofUserKey:)``'s general path.
    @inline(__always)
    func replayedPosition(ofUserKey key: String) -> Int?? {
        guard state.pointee.frame.replaying else { return nil }
        let r = state.pointee.frame.lookupRecord
        let request = state.pointee.frame.requests
        guard r >= 0, state.pointee.keyLookups[r].generation == state.pointee.frame.lookupGeneration,
              request < state.pointee.keyLookups[r].answers.count, !state.pointee.keyLookups[r].answers[request].dollar,
              state.pointee.keyLookups[r].answers[request].key == key
        else { return nil }
        state.pointee.frame.requests = request + 1
        let position = state.pointee.keyLookups[r].answers[request].position
        guard position >= 0 else { return .some(nil) }
        state.pointee.frame.hint = position + 1
        return .some(position)
    }

    /// Records the general path's answer to request `request` of the current frame, when it records and is
    /// still the record's owner, asking in order.
    @inline(__always)
    func recordPosition(_ position: Int?, ofRawKey key: String, request: Int) {
        let r = state.pointee.frame.lookupRecord
        guard state.pointee.keyLookups[r].generation == state.pointee.frame.lookupGeneration,
              request == state.pointee.keyLookups[r].answers.count else {
            state.pointee.frame.lookupRecord = -1
            return
        }
        state.pointee.keyLookups[r].answers.append((key, position ?? -1, key.utf8.first == UInt8(ascii: "$")))
    }
}
