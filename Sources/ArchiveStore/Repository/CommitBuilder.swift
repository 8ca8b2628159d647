/// The frames of one commit of a record log, built in memory: each linked after the one before it (see
/// ``RecordLog``), the last flagged as the end of the commit when ``finish()`` is called. A large commit hands
/// out what it has built so far with ``drain()`` (everything but the last frame, whose flag is still to be set),
/// so that a bulk import holds a bounded amount in memory.
struct CommitBuilder {
    /// What one frame does to the live table once committed.
    struct Applied {
        /// The record's key when the builder keeps keys (for the journal of changes, see
        /// ``StoreHandle/takeJournal()``); empty otherwise, so that a large import holds no key per record.
        var key: [UInt8]
        /// The record's property index values, when the writer computed them (see ``PropertyIndexes``).
        var values: [IndexValue]?
        var hash: UInt64
        /// The frame's offset from the start of the commit.
        var offset: Int
        var length: Int
        var expiryBits: UInt64
        /// The table index of the entry it replaces or removes.
        var replacing: Int?
        var isDelete: Bool
    }

    /// The end of the last commit, where the frames go.
    let start: Int
    /// Whether each ``Applied`` keeps its key (the handle records a journal).
    var keepsKeys = false
    let path: String
    private(set) var bytes: [UInt8] = []
    private(set) var applied: [Applied] = []
    /// Bytes handed out by ``drain()``.
    private(set) var drained = 0
    private(set) var frames = 0
    /// The chain after the last sealed frame.
    private var chain: UInt32
    /// The last frame's position in `bytes` and length: appended, not sealed (linked and checksummed) until the
    /// next frame comes or the commit ends, so that each frame is checksummed once, with its commit flag.
    private var unsealed: (at: Int, length: Int)?

    init(start: Int, chain: UInt32, path: String) {
        self.start = start
        self.chain = chain
        self.path = path
    }

    /// The bytes built so far, handed out and drained included.
    var size: Int { drained + bytes.count }

    /// Adds the frame of a record put under `key`.
    /// - Throws: ``StoreError/Code/invalidArgument`` for a key or a frame larger than the format holds.
    mutating func put(key: [UInt8], hash: UInt64, expiryBits: UInt64, payload: [UInt8], replacing: Int?,
                      values: [IndexValue]? = nil) throws(StoreError) {
        // The key is the id's description in UTF-8: what an error names it by.
        guard key.count <= RecordLog.largestKey else {
            throw StoreError(.invalidArgument, "the record id takes \(key.count) bytes; at most \(RecordLog.largestKey)",
                             path: path, recordID: String(decoding: key, as: UTF8.self))
        }
        let length = FrameHeader.size + key.count + payload.count
        guard length <= RecordLog.largestFrame else {
            throw StoreError(.invalidArgument, "the record archives to \(length) bytes; at most 4 GiB", path: path,
                             recordID: String(decoding: key, as: UTF8.self))
        }
        append(.put, key: key, hash: hash, expiryBits: expiryBits, payload: payload, replacing: replacing)
        applied[applied.count - 1].values = values
    }

    /// Adds the frame that removes the record under `key`, at `replacing` in the table.
    mutating func delete(key: [UInt8], hash: UInt64, replacing: Int) {
        append(.delete, key: key, hash: hash, expiryBits: Double.nan.bitPattern, payload: [], replacing: replacing)
    }

    private mutating func append(_ kind: FrameKind, key: [UInt8], hash: UInt64, expiryBits: UInt64, payload: [UInt8],
                                 replacing: Int?) {
        seal(endsCommit: false)
        let at = bytes.count
        // One allocation for the frame, not one for each part appended.
        bytes.reserveCapacity(at + FrameHeader.size + key.count + payload.count)
        FrameHeader.appendUnsealed(kind: kind, key: key, expiryBits: expiryBits, payload: payload, to: &bytes)
        let length = bytes.count - at
        applied.append(Applied(key: keepsKeys ? key : [], values: nil, hash: hash, offset: drained + at, length: length, expiryBits: expiryBits, replacing: replacing,
                               isDelete: kind == .delete))
        unsealed = (at, length)
        frames += 1
    }

    /// Links and checksums the last frame appended, flagged as the end of the commit or not.
    private mutating func seal(endsCommit: Bool) {
        guard let frame = unsealed else { return }
        let checksum = FrameHeader.relink(&bytes, at: frame.at, length: frame.length, link: chain, endsCommit: endsCommit)
        chain = LogState.chain(chain, after: checksum)
        unsealed = nil
    }

    /// The bytes built so far but the last frame (each of them sealed), to be written before the commit; `nil`
    /// when there are none.
    mutating func drain() -> [UInt8]? {
        guard let frame = unsealed, frame.at > 0 else { return nil }
        let out = Array(bytes[0..<frame.at])
        bytes.removeSubrange(0..<frame.at)
        drained += frame.at
        unsealed = (0, frame.length)
        return out
    }

    /// The commit: the last frame flagged as its end.
    mutating func finish() -> StoreHandle.Commit {
        seal(endsCommit: true)
        return StoreHandle.Commit(start: start, writtenAhead: drained, bytes: bytes, frames: frames, chain: chain, changes: applied)
    }
}
