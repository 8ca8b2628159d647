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
    /// The recorded object's key references as the document stores them, in dictionary order.
    var keyBytes: [UInt8] = []
    /// Per request of the recorded object, in order: the raw key asked for, the position found (-1: missing)
    /// and whether the raw key begins with "$" (so a user key equal to it is not that raw key: see
    /// ``KeyedUnarchiver/replayedPosition(ofUserKey:)``).
    var answers: [(key: String, position: Int, dollar: Bool)] = []
    /// Whether ``answers`` is a ``KeyAnswerMemo``'s array, taken whole rather than copied element by element
    /// (emptying it then drops the reference instead of emptying the memo's storage in a copy).
    var answersAreShared = false
    /// Changed each time the record is restarted, so that a frame replaying or recording it notices.
    var generation = 0
    /// The decode counter when the record was last matched or restarted (the older of a class's two is
    /// restarted).
    var lastUse = 0

    /// Empties ``answers``, keeping its storage when it is the record's own.
    @inline(__always)
    mutating func clearAnswers() {
        if answersAreShared {
            answers = []
            answersAreShared = false
        } else {
            answers.removeAll(keepingCapacity: true)
        }
    }
}

extension KeyedUnarchiver {
    /// Records per class slot (the last two key-object sets of each class: objects with and without an
    /// optional key alternate).
    private static var recordsPerSlot: Int { 2 }

    /// Sets up the current frame (an object of class slot `slot`) to replay a record whose key objects are
    /// its own, or to record its lookups into the older of its class's records.
    @inline(__always)
    func beginKeyLookups(slot: Int, memo: KeyAnswerMemo? = nil) {
        let keyBytes = reader.objects.keyReferenceBytes(state.pointee.frame.fields)
        let first = slot * Self.recordsPerSlot
        if state.pointee.keyLookups.count < first + Self.recordsPerSlot {
            state.pointee.keyLookups.append(contentsOf: repeatElement(KeyLookupRecord(),
                count: first + Self.recordsPerSlot - state.pointee.keyLookups.count))
        }
        state.pointee.lookupClock += 1
        let clock = state.pointee.lookupClock
        // One access to the records for the whole search (no uniqueness check per field).
        let (record, generation, replaying) = state.pointee.keyLookups.withUnsafeMutableBufferPointer { records in
            var oldest = first
            for r in first..<(first + Self.recordsPerSlot) {
                if records[r].lastUse < records[oldest].lastUse { oldest = r }
                guard !keyBytes.isEmpty, records[r].keyBytes.withUnsafeBytes({ Self.same($0, keyBytes) }) else { continue }
                records[r].lastUse = clock
                return (r, records[r].generation, true)
            }
            records[oldest].generation += 1
            records[oldest].lastUse = clock
            records[oldest].clearAnswers()
            records[oldest].keyBytes.removeAll(keepingCapacity: true)
            records[oldest].keyBytes.append(contentsOf: keyBytes)
            return (oldest, records[oldest].generation, false)
        }
        state.pointee.frame.lookupRecord = record
        state.pointee.frame.lookupGeneration = generation
        state.pointee.frame.replaying = replaying
        if !replaying, let memo { useKeyAnswers(memo, record: record) }
    }

    /// An object of a class with lookups kept across archives (``KeyAnswerMemo``), whose key objects no record of
    /// this archive has: the kept answers become its record's when its keys are the kept ones, else its lookups
    /// are kept for the next archives when its keys can be.
    private func useKeyAnswers(_ memo: KeyAnswerMemo, record: Int) {
        let fields = state.pointee.frame.fields
        if memo.holds(fields, reader) {
            // The memo's array itself (one reference, not a copy of each answer): the record is emptied before
            // it is recorded into again (``KeyLookupRecord/clearAnswers()``).
            state.pointee.keyLookups[record].answers = memo.answers
            state.pointee.keyLookups[record].answersAreShared = true
            state.pointee.frame.replaying = true
        } else if memo.startRecording(fields, reader) {
            state.pointee.frame.memo = memo
            state.pointee.frame.memoToken = memo.token
        }
    }

    /// Whether two byte ranges are equal, eight bytes at a time.
    @inline(__always)
    private static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let n = a.count
        guard n == b.count else { return false }
        guard n > 0, let p = a.baseAddress, let q = b.baseAddress else { return true }
        var i = 0
        while i &+ 8 <= n {
            guard p.loadUnaligned(fromByteOffset: i, as: UInt64.self) == q.loadUnaligned(fromByteOffset: i, as: UInt64.self) else {
                return false
            }
            i &+= 8
        }
        while i < n {
            guard p.load(fromByteOffset: i, as: UInt8.self) == q.load(fromByteOffset: i, as: UInt8.self) else { return false }
            i &+= 1
        }
        return true
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
        let answer = (key: key, position: position ?? -1, dollar: key.utf8.first == UInt8(ascii: "$"))
        state.pointee.keyLookups[r].answers.append(answer)
        if let memo = state.pointee.frame.memo, memo.token == state.pointee.frame.memoToken, request == memo.answers.count {
            memo.answers.append(answer)
        }
    }
}

/// The key lookups of one class's objects, kept across the archives a ``KeyedUnarchiver/Scratch`` decodes (a
/// repository reads one record, of the same class, per archive), so that the next archive's object of the
/// class whose dictionary holds the same keys gets them back instead of searching.
///
/// Kept only for a dictionary whose keys are all ASCII strings, no two the same: there, whatever the key objects
/// and whatever is known of them, the lookup of a key finds the one position holding it, or none. So the
/// answers are those of any dictionary holding the same key strings in the same order, which a new archive's
/// dictionary is checked for, key by key, before they are used (then as a record of this archive is replayed:
/// request by request, each request's key compared, the general path taking over at the first difference).
final class KeyAnswerMemo {
    /// The kept dictionary's keys, UTF-8, in dictionary order.
    private(set) var keys: [[UInt8]] = []
    /// Its lookups in request order, as ``KeyLookupRecord/answers``.
    var answers: [(key: String, position: Int, dollar: Bool)] = []
    /// Changed whenever an object starts recording here: an object nested in another of its class takes the
    /// memo over, and the outer one's later lookups are no longer added.
    private(set) var token: UInt64 = 0
    /// The most keys a kept dictionary has.
    static let largestDictionary = 32

    /// Whether `fields` holds exactly the kept keys, in order (a key that cannot be read does not match).
    func holds(_ fields: ArchiveObjectReader.DictionaryView, _ reader: ArchiveObjectReader) -> Bool {
        guard !keys.isEmpty, fields.count == keys.count else { return false }
        for i in 0..<keys.count {
            guard let ref = try? reader.keyReference(fields, i),
                  (try? keys[i].withUnsafeBufferPointer({ try reader.isString(ref, equalTo: $0) })) == true
            else { return false }
        }
        return true
    }

    /// Starts keeping the lookups of an object with the keys of `fields`, when they are ASCII strings, no two the
    /// same; returns whether it did (the answers kept before are dropped either way).
    func startRecording(_ fields: ArchiveObjectReader.DictionaryView, _ reader: ArchiveObjectReader) -> Bool {
        keys.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
        token &+= 1
        guard fields.count > 0, fields.count <= Self.largestDictionary else { return false }
        for i in 0..<fields.count {
            guard let ref = try? reader.keyReference(fields, i), let key = try? reader.string(ref),
                  key.utf8.allSatisfy({ $0 < 0x80 })
            else {
                keys.removeAll(keepingCapacity: true)
                return false
            }
            let bytes = Array(key.utf8)
            guard !keys.contains(bytes) else {
                keys.removeAll(keepingCapacity: true)
                return false
            }
            keys.append(bytes)
        }
        return true
    }
}
