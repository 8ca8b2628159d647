extension ArchiveRepository {
    /// What ``recoverDamagedCommit()`` did.
    public struct Recovery: Sendable, Hashable {
        /// The intact frames found past the last good commit and taken as committed.
        public var recoveredFrames: Int
        /// Where the store file as it was is kept (`<path>.before-recovery`).
        public var originalPath: String
    }

    /// Repairs a store that reports ``StoreError/Code/damagedCommit``: its newer commit slot fails its checksum
    /// while intact frames follow the older commit. Those frames (each matching its own checksum, up to the
    /// first that does not) are taken as committed: the last commit is kept whether the damage was bit rot of a
    /// commit that was acknowledged or a crash while one was being made (a change whose caller never heard
    /// back, which SQLite would likewise keep if its commit record were whole). The store is rewritten with
    /// its live records, and the file as it was is kept beside it as `<path>.before-recovery`.
    ///
    /// ```swift
    /// do { _ = try repository.all() }
    /// catch where error.code == .damagedCommit { try repository.recoverDamagedCommit() }
    /// ```
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when the store has no damaged commit (nothing is changed),
    ///   ``StoreError/Code/notFound`` when there is no store, ``StoreError/Code/corrupt`` when what precedes the
    ///   damage cannot be read.
    ///
    /// No Apple API; `sqlite3 .recover` plays this part for SQLite.
    @discardableResult
    public func recoverDamagedCommit() throws(StoreError) -> Recovery {
        let recovery = try locked(createsDirectory: false) { () throws(StoreError) -> Recovery in
            guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else {
                throw StoreError(.notFound, "there is no store file to recover", path: path)
            }
            let size: Int
            let prologue: RecordLog.Prologue
            do throws(StoreError) {
                let info = try fileSystem.status(fd, path)
                try info.requireOwnRegularFile(path)
                size = try StoreFile.fileSize(info, path)
                prologue = try RecordLog.prologue(try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path), path: path)
            } catch {
                fileSystem.close(fd)
                throw error
            }
            guard prologue.damagedSlot != nil, prologue.state.chain != nil else {
                fileSystem.close(fd)
                throw StoreError(.invalidArgument, "the store has no damaged commit; nothing was changed", path: path)
            }
            let snapshot = try StoreSnapshot(fd: fd, state: prologue.state, path: path, fileSystem: fileSystem,
                                             tuning: options.tuning, writable: true)
            // The live records of the good commit, in log order, then the intact frames after it applied in turn.
            var frames: [(key: [UInt8], frame: [UInt8], header: FrameHeader)?] = []
            var position: [[UInt8]: Int] = [:]
            func apply(_ key: [UInt8], _ frame: [UInt8], _ header: FrameHeader) {
                if let old = position.removeValue(forKey: key) { frames[old] = nil }
                guard header.kind == .put else { return }
                position[key] = frames.count
                frames.append((key, frame, header))
            }
            try snapshot.forEachLiveFrame { frame throws(StoreError) in
                let bytes = try snapshot.frameBytes(at: frame.offset, length: frame.header.length)
                apply(frame.key, bytes, frame.header)
            }
            var offset = snapshot.state.committed
            var recovered = 0
            while size - offset >= RecordLog.frameHeaderSize {
                let prefix = try fileSystem.read(fd, count: RecordLog.frameHeaderSize, at: offset, path)
                guard let header = try? FrameHeader(prefix, at: 0, available: size - offset, fileOffset: offset, path: path) else { break }
                let bytes = try fileSystem.read(fd, count: header.length, at: offset, path)
                guard bytes.count == header.length, header.verify(bytes, at: 0) else { break }
                apply(Array(bytes[RecordLog.frameHeaderSize..<RecordLog.frameHeaderSize + header.keyLength]), bytes, header)
                offset += header.length
                recovered += 1
            }
            // The file as it was, kept whole before anything replaces it.
            let original = path + ".before-recovery"
            var copy = try AtomicReplace(replacing: original, fileSystem: fileSystem)
            do throws(StoreError) {
                var at = 0
                while at < size {
                    let chunk = try fileSystem.read(fd, count: min(1 << 20, size - at), at: at, path)
                    guard !chunk.isEmpty else { break }
                    try copy.append(chunk)
                    at += chunk.count
                }
                try copy.finish(.synchronous)
                try copy.install(.synchronous)
            } catch where error.code == .durabilityUnknown {
                // In place; the rewrite below syncs the directory again.
            } catch {
                copy.abandon()
                throw error
            }
            var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: snapshot.state.recordVersion)
            do throws(StoreError) {
                for case let (key, frame, header)? in frames {
                    try builder.add(frame: frame, checksum: header.checksum, hash: RecordIndex.hash(key), expiryBits: header.expiryBits)
                }
            } catch {
                builder.abandon()
                throw error
            }
            try builder.install()
            return Recovery(recoveredFrames: recovered, originalPath: original)
        }
        guard let recovery else { throw StoreError(.notFound, "there is no store file to recover", path: path) }
        return recovery
    }
}
