/// Records decoded lately, by their frame's offset in one log (a frame is never changed once committed, so an
/// offset of the same log always names the same record): a query or `get` that returns them again returns the
/// copies kept here instead of decoding their archives again. At most ``RepositoryOptions/decodedRecordCacheCapacity``
/// records, the oldest dropped first; records of a class type are never kept (each caller gets its own
/// instance, as from `NSKeyedUnarchiver`).
///
/// No Apple API: the part of Core Data's row cache.
struct DecodedRecords<Record> {
    private var generation: UInt64 = 0
    private var inode: UInt64 = 0
    /// Offset -> slot of ``records``: a map of concrete types, so that a lookup costs no generic metadata
    /// (the repository's code runs unspecialized for the caller's record type).
    private var slots: [Int: Int] = [:]
    /// The records kept, a ring in the order they were kept, with the offset each is kept under.
    private var records: ContiguousArray<Record> = []
    private var offsets: [Int] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = Record.self is AnyClass ? 0 : Swift.max(0, capacity) }

    /// The record of the frame at `offset` of the log `generation` in the file `inode`, if kept.
    mutating func record(at offset: Int, generation: UInt64, inode: UInt64) -> Record? {
        guard capacity > 0 else { return nil }
        if generation != self.generation || inode != self.inode {
            slots.removeAll(keepingCapacity: true)
            records.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            next = 0
            self.generation = generation
            self.inode = inode
            return nil
        }
        guard let slot = slots[offset] else { return nil }
        return records[slot]
    }

    mutating func keep(_ record: Record, at offset: Int, generation: UInt64, inode: UInt64) {
        guard capacity > 0, generation == self.generation, inode == self.inode, slots[offset] == nil else { return }
        if records.count < capacity {
            slots[offset] = records.count
            records.append(record)
            offsets.append(offset)
        } else {
            slots[offsets[next]] = nil
            slots[offset] = next
            records[next] = record
            offsets[next] = offset
            next = (next + 1) % capacity
        }
    }
}
