extension ArchiveRepository {
    /// What ``recoverDamagedCommit()`` did.
    public struct Recovery: Sendable, Hashable {
        /// The intact frames found past the last good commit and taken as committed.
        public var recoveredFrames: Int
        /// The damaged frames past the last good commit that were left out (their changes are lost).
        public var damagedFrames: Int
        /// Where the store file as it was is kept (`<path>.before-recovery`).
        public var originalPath: String
    }

    /// Repairs a store that reports ``StoreError/Code/damagedCommit``: damage hides commits that later ones prove
    /// were made (a frame damaged after its commit was synced, with intact commits after it; in a store of the
    /// format before this one, a damaged newer commit slot with intact frames after the older one). The intact
    /// frames after the last good commit are taken as committed, up to the last whole commit, and the damaged
    /// ones left out: the store keeps every change the damage did not destroy. It is rewritten with its live
    /// records, and the file as it was is kept beside it as `<path>.before-recovery`.
    ///
    /// ```swift
    /// do { _ = try repository.records() }
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
            do throws(StoreError) {
                switch try StoreHandle.open(path, fileSystem: fileSystem, counters: counters, unpublished: .held) {
                case .absent: throw StoreError(.notFound, "there is no store file to recover", path: path)
                default: throw StoreError(.invalidArgument, "the store has no damaged commit; nothing was changed", path: path)
                }
            } catch where error.code == .damagedCommit {
                // Below.
            }
            guard let (handle, size) = try StoreHandle.openForRecovery(path, fileSystem: fileSystem, counters: counters) else {
                throw StoreError(.notFound, "there is no store file to recover", path: path)
            }
            let salvage = try handle.salvage(size: size)
            // The file as it was, kept whole before anything replaces it.
            let original = path + ".before-recovery"
            var copy = try AtomicReplace(replacing: original, fileSystem: fileSystem)
            do throws(StoreError) {
                var at = 0
                while at < size {
                    let chunk = try fileSystem.read(handle.fd, count: Swift.min(1 << 20, size - at), at: at, path)
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
            var builder = try LogBuilder(path: path, fileSystem: fileSystem, recordVersion: handle.state.recordVersion)
            do throws(StoreError) {
                for frame in salvage.frames { try builder.add(frameIn: frame.bytes, at: 0, header: frame.header) }
            } catch {
                builder.abandon()
                throw error
            }
            try installBuilt(&builder, replacing: nil)
            return Recovery(recoveredFrames: salvage.recovered, damagedFrames: salvage.damaged, originalPath: original)
        }
        guard let recovery else { throw StoreError(.notFound, "there is no store file to recover", path: path) }
        return recovery
    }
}

extension StoreHandle {
    /// The store at `path` opened read-only for ``ArchiveRepository/recoverDamagedCommit()``, with its size,
    /// nothing read past its prologue; `nil` when there is no file.
    static func openForRecovery(_ path: String, fileSystem: FileSystem, counters: StoreCounters) throws(StoreError) -> (StoreHandle, Int)? {
        guard let fd = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking]) else { return nil }
        var owned = true
        defer { if owned { fileSystem.close(fd) } }
        let info = try fileSystem.status(fd, path)
        try info.requireOwnRegularFile(path)
        let size = try fileSize(info, path)
        let prologue = try RecordLog.prologue(try fileSystem.read(fd, count: RecordLog.firstFrame, at: 0, path), path: path)
        owned = false
        return (StoreHandle(path: path, fileSystem: fileSystem, fd: fd, inode: info.inode, format: prologue.format, writable: false,
                             state: prologue.state, counters: counters), size)
    }

    /// What ``salvage(size:)`` keeps.
    struct Salvage {
        /// The live records' whole frames, in log order.
        var frames: [(bytes: [UInt8], header: FrameHeader)]
        var recovered: Int
        var damaged: Int
    }

    /// The live records of a store whose damage hides commits: every frame up to the newest slot (which must
    /// all be intact), then the frames after it that are intact, in whole commits (a chained log; a log of
    /// format 2 has no commit marks and keeps them all), leaving out damaged ones whose header still tells
    /// where the next frame starts and how it links.
    func salvage(size: Int) throws(StoreError) -> Salvage {
        var live: [[UInt8]: Int] = [:]
        var frames: [(bytes: [UInt8], header: FrameHeader)?] = []
        func apply(_ header: FrameHeader, _ bytes: [UInt8]) {
            let key = Array(header.key(in: bytes, at: 0))
            if let old = live.removeValue(forKey: key) { frames[old] = nil }
            guard header.kind == .put else { return }
            live[key] = frames.count
            frames.append((bytes, header))
        }
        let slot = state
        let trusted = try walk(from: RecordLog.firstFrame, to: slot.committed,
                               chain: isChained ? RecordLog.seed(generation: slot.generation) : 0) { header, _, bytes, at throws(StoreError) in
            apply(header, Array(bytes[at..<at + header.length]))
        }
        guard trusted.offset == slot.committed, !trusted.stoppedEarly else {
            throw StoreError(.corrupt, "before the last good commit, " + trusted.reason, path: path, offset: trusted.offset)
        }
        var offset = slot.committed
        var chain = trusted.chain
        var recovered = 0
        var damaged = 0
        // A chained log's frames wait for the flagged frame that ends their commit.
        var pending: [(FrameHeader, [UInt8])] = []
        var pendingDamaged = 0
        while size - offset >= FrameHeader.size {
            guard let prefix = try? fileSystem.read(fd, count: FrameHeader.size, at: offset, path),
                  let header = try? FrameHeader(prefix, at: 0, available: size - offset, fileOffset: offset, path: path, chained: isChained),
                  !isChained || header.link == chain
            else { break }
            let bytes = try fileSystem.read(fd, count: header.length, at: offset, path)
            guard bytes.count == header.length else { break }
            if header.verify(bytes, at: 0) {
                pending.append((header, bytes))
            } else {
                pendingDamaged += 1
            }
            chain = LogState.chain(chain, after: header.checksum)
            offset += header.length
            if !isChained || header.endsCommit {
                for (header, bytes) in pending { apply(header, bytes) }
                recovered += pending.count
                damaged += pendingDamaged
                pending = []
                pendingDamaged = 0
            }
        }
        return Salvage(frames: frames.compactMap { $0 }, recovered: recovered, damaged: damaged)
    }
}
