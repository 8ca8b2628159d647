/// The UIDs whose decoding has begun and not finished (the unarchiver's cycle check), one bit per UID.
/// A `Set<Int>` hashed every object; the archive's object count bounds the UIDs, so a bit array does.
///
/// The words are raw memory owned by the unarchiver's decoding state and freed with it
/// (``deallocate()``): an array would be checked for uniqueness at every insert and remove, twice an object.
/// UIDs outside `0..<count` are never members (inserting one does nothing).
struct UIDBitSet {
    private var words: UnsafeMutablePointer<UInt64>
    private var wordCount: Int
    /// The words allocated (at least `wordCount`): a reused set keeps its storage.
    private var capacity: Int

    init(count: Int) {
        wordCount = (max(count, 0) + 63) >> 6
        capacity = max(wordCount, 1)
        words = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        words.initialize(repeating: 0, count: capacity)
    }

    /// Frees the words; called once, when the decoding state goes.
    func deallocate() { words.deallocate() }

    /// An empty set of `count` bits, in the storage it has when that is large enough.
    mutating func reset(count: Int) {
        wordCount = (max(count, 0) + 63) >> 6
        if wordCount > capacity {
            words.deallocate()
            capacity = wordCount
            words = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        }
        words.initialize(repeating: 0, count: max(wordCount, 1))
    }

    @inline(__always)
    func contains(_ uid: Int) -> Bool {
        let w = uid >> 6
        guard uid >= 0, w < wordCount else { return false }
        return words[w] & (1 << UInt64(uid & 63)) != 0
    }

    @inline(__always)
    func insert(_ uid: Int) {
        let w = uid >> 6
        guard uid >= 0, w < wordCount else { return }
        words[w] |= 1 << UInt64(uid & 63)
    }

    @inline(__always)
    func remove(_ uid: Int) {
        let w = uid >> 6
        guard uid >= 0, w < wordCount else { return }
        words[w] &= ~(1 << UInt64(uid & 63))
    }
}

/// The keys from the top object down to the object being decoded, which an error's key path names. Raw
/// memory owned by the unarchiver's decoding state and freed with it (``deallocate()``): a push and a pop an
/// object, with none of an array's uniqueness checks.
///
/// An element of an inline array of references is pushed as its array's key and its index, and named
/// `NS.objects.3` only when the path is read (an error): no string is made for each element decoded.
struct KeyPathStack {
    /// A struct, not a tuple: a tuple's pop would be destroyed through the runtime's generic tuple witness.
    private struct Entry {
        let key: String
        let element: Int
    }

    private var storage: UnsafeMutablePointer<Entry>?
    private var capacity = 0
    private(set) var count = 0

    /// Allocates nothing until the first push (most small archives nest one object deep).
    init() {}

    /// Releases the keys and frees the storage; called once, when the decoding state goes.
    func deallocate() {
        guard let storage else { return }
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Pushes `key`, or element `element` of the array under `key` when `element` is not negative.
    @inline(__always)
    mutating func push(_ key: String, element: Int = -1) {
        if count == capacity { grow() }
        guard let storage else { return }
        (storage + count).initialize(to: Entry(key: key, element: element))
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        guard count > 0, let storage else { return }
        count -= 1
        (storage + count).deinitialize(count: 1)
    }

    /// The keys, outermost first, an element as `key.index`.
    var keys: [String] {
        guard let storage else { return [] }
        return UnsafeBufferPointer(start: storage, count: count).map { Self.name($0.key, element: $0.element) }
    }

    /// `key`, or `key.element` for an element of the array under `key`.
    static func name(_ key: String, element: Int) -> String {
        element < 0 ? key : "\(key).\(element)"
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Entry>.allocate(capacity: max(8, capacity * 2))
        if let storage {
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
        }
        storage = larger
        capacity = max(8, capacity * 2)
    }
}

/// Resolved class dictionaries by UID. Archives hold few classes, so the first ones are found by a linear
/// scan of a short array (no hashing per object); any beyond those go to a dictionary. In front of both, once
/// an archive has five classes, a direct-mapped table by the UID's low bits answers a class found before
/// with one comparison (an archive of a few classes, a record, allocates no table).
struct ResolvedClassCache {
    private var uids: [Int] = []
    private var classes: [ResolvedClass] = []
    private var overflow: [Int: ResolvedClass] = [:]
    private static let linearLimit = 16
    /// How many classes an archive has before the direct-mapped table is made.
    private static let tableFrom = 5
    private var recentUIDs: [Int] = []
    private var recentClasses: [ResolvedClass?] = []
    private static var recentSlots: Int { 32 }

    /// Empty, as a new cache is, keeping the storage of its short arrays (a reused decoding state's).
    mutating func removeAll() {
        uids.removeEachKeepingStorage()
        classes.removeEachKeepingStorage()
        if !overflow.isEmpty { overflow = [:] }
        if !recentUIDs.isEmpty {
            recentUIDs = []
            recentClasses = []
        }
    }

    /// Sets the ``ResolvedClass/verified`` type of the class at `classUID` (already cached).
    mutating func setVerified(_ type: ObjectIdentifier, forClass classUID: Int) {
        if let i = uids.firstIndex(of: classUID) {
            classes[i].verified = type
        } else {
            overflow[classUID]?.verified = type
        }
    }

    /// The class at `classUID`, remembered in the direct-mapped table once found (when there is one).
    @inline(__always)
    mutating func lookup(_ classUID: Int) -> ResolvedClass? {
        if recentUIDs.isEmpty {
            for i in uids.indices where uids[i] == classUID { return classes[i] }
            return nil
        }
        let slot = classUID & (Self.recentSlots - 1)
        if recentUIDs[slot] == classUID, let c = recentClasses[slot] { return c }
        guard let c = self[classUID] else { return nil }
        recentUIDs[slot] = classUID
        recentClasses[slot] = c
        return c
    }

    subscript(classUID: Int) -> ResolvedClass? {
        get {
            for i in uids.indices where uids[i] == classUID { return classes[i] }
            return uids.count < Self.linearLimit ? nil : overflow[classUID]
        }
        set {
            guard let newValue else { return }
            if uids.count < Self.linearLimit {
                if uids.isEmpty {
                    uids.reserveCapacity(4)
                    classes.reserveCapacity(4)
                }
                uids.append(classUID)
                classes.append(newValue)
                if uids.count == Self.tableFrom {
                    recentUIDs = [Int](repeating: -1, count: Self.recentSlots)
                    recentClasses = [ResolvedClass?](repeating: nil, count: Self.recentSlots)
                }
            } else {
                overflow[classUID] = newValue
            }
        }
    }
}


extension KeyedUnarchiver.DecodingState {
    /// ``knownKeyObjects`` with no key found.
    static let noKnownKeyObjects = [Int](repeating: -1, count: StandardKey.count)

    /// The state of a new decode of an archive of `objectCount` `$objects` and `uidCount` plist objects, made in
    /// place of this one (a ``KeyedUnarchiver/Scratch``'s): every field as a new decode starts it (the values of
    /// the stored properties' declarations), only the storage of the bit sets, the key path and a few tables
    /// kept. Field by field rather than by assigning a new state, which built and destroyed the whole struct
    /// (about 2,000 instructions a record); ``DecodingStateFieldsTests`` counts the fields, so that one added
    /// later is added here too.
    mutating func reuse(top: KeyedUnarchiver.Frame, objectCount: Int, uidCount: Int) {
        frame = top
        instances = InstanceTable(count: objectCount)
        inProgress.reset(count: objectCount)
        registeredKeys.reset(count: uidCount)
        valid = true
        depth = 0
        decodedCount = 0
        while keyPath.count > 0 { keyPath.pop() }
        if !pending.isEmpty { pending = [:] }
        classCache.removeAll()
        keyObjects.removeEachKeepingStorage()
        knownKeyObjects.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        requestCacheCount = 0
        if keyLookups.count > 64 {
            keyLookups.removeEachKeepingStorage()
        } else {
            // Emptied in place: the next archive's records (a repository reads one class per archive) fill the
            // storage of the last one's instead of growing new arrays; no record matches until one is recorded.
            keyLookups.withUnsafeMutableBufferPointer { records in
                for r in records.indices {
                    records[r].keyBytes.removeAll(keepingCapacity: true)
                    records[r].clearAnswers()
                    records[r].lastUse = 0
                }
            }
        }
        lookupClock = 0
        if !elementCasts.isEmpty { elementCasts = [] }
        requested = .anything
        if !requestLists.isEmpty { requestLists = [] }
        elements = ("", -1, -1)
        listSerial = 0
        if !typesNamingATypes.isEmpty { typesNamingATypes = [] }
        if !allowedRequests.isEmpty { allowedRequests = [] }
        hooked = false
        didDecode = nil
        if !substituted.isEmpty { substituted = [:] }
        hasSubstitutes = false
        cycles = ArchivedObjectCycles()
        if !fieldKeys.isEmpty { fieldKeys = [] }
        keepsMutableClasses = false
    }
}

extension KeyedUnarchiver.DecodingState {
    /// The slot of a key request cache for one more class of this decode: the next of `requestCaches`,
    /// emptied with its storage kept, or a new one.
    mutating func newRequestCache() -> Int { requestCaches.nextEmptied(&requestCacheCount) }
}

extension Array where Element: RangeReplaceableCollection {
    /// The index of the next of this array's first `used` elements (`used` counted up): that element emptied
    /// with its storage kept, or a new empty one appended. Tables of per-class caches that a reused coder state
    /// keeps from one archive to the next hand out their slots this way.
    mutating func nextEmptied(_ used: inout Int) -> Int {
        let slot = used
        if slot < count {
            self[slot].removeAll(keepingCapacity: true)
        } else {
            append(Element())
        }
        used += 1
        return slot
    }
}

extension Array {
    /// Removes every element, keeping the storage: for the few elements a reused state's tables hold, one
    /// `removeLast()` each costs less than `removeAll(keepingCapacity:)`, which goes through the general
    /// `replaceSubrange`.
    @inline(__always)
    mutating func removeEachKeepingStorage() {
        while !isEmpty { removeLast() }
    }
}
