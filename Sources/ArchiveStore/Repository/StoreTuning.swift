/// Numbers that decide when a repository writes its index again, compacts its log and writes a large commit
/// ahead; tests make them small.
package struct StoreTuning: Sendable {
    /// The index is written again once this many frames were committed past it, or a 32nd of the live records
    /// when that is more (so that its cost per commit stays bounded as the store grows).
    package var mergeFrames = 1024
    /// The log is rewritten without its dead frames when they take more than the live ones and at least this.
    package var compactionFloor = 4 << 20
    /// Whether the index is written on a background queue (callers never wait on it), falling back to the
    /// writer when it falls four times behind; tests that count a change's calls turn it off.
    package var maintainsInBackground = true
    /// The bytes an import or a transaction builds in memory before it writes them ahead of its commit.
    package var writeAheadBytes = 4 << 20
    /// The bytes of the archives whose decoded records the repository keeps at most (see
    /// ``RepositoryOptions/decodedRecordCacheCapacity``): a record's decoded size follows its archive's.
    package var decodedRecordBytes = 4 << 20

    package init() {}

    /// The frames past the index after which it is written again, for a store of `live` records.
    func indexInterval(live: Int) -> Int { max(mergeFrames, live / 32) }
}
