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
    private var records: [Int: Record] = [:]
    /// Offsets in the order they were kept (a ring), to drop the oldest.
    private var order: [Int] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = Record.self is AnyClass ? 0 : Swift.max(0, capacity) }

    /// The record of the frame at `offset` of the log `generation` in the file `inode`, if kept.
    mutating func record(at offset: Int, generation: UInt64, inode: UInt64) -> Record? {
        guard capacity > 0 else { return nil }
        if generation != self.generation || inode != self.inode {
            records.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            next = 0
            self.generation = generation
            self.inode = inode
            return nil
        }
        return records[offset]
    }

    mutating func keep(_ record: Record, at offset: Int, generation: UInt64, inode: UInt64) {
        guard capacity > 0, generation == self.generation, inode == self.inode, records[offset] == nil else { return }
        if order.count < capacity {
            order.append(offset)
        } else {
            records[order[next]] = nil
            order[next] = offset
            next = (next + 1) % capacity
        }
        records[offset] = record
    }
}
