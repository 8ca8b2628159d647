import ArchivePlatform

/// The segment files of a cache directory (`segments/<8 hex>.seg`): append-only files of frames (see
/// ``FrameHeader``), numbered in the order they were started. Small entries are packed into them, so that a 1 KiB
/// entry takes about 1 KiB on disk, not a 4 KiB block of its own.
///
/// Writers append to the head segment (the one with the largest number) holding the directory's lock, and start
/// a new one when it is full; eviction removes the oldest segment whole. Readers read frames by (segment, offset,
/// length) without any lock, through descriptors they keep open: a segment removed meanwhile still reads as it
/// was, and numbers are never reused, so a frame read is always the one its slot named when it was read.
final class CacheSegments: Sendable {
    static let directoryName = "segments"
    /// Descriptors kept open per cache object (the least recently used is closed past it).
    static let openLimit = 32
    /// The longest frame a cache writes: the fixed part, a key of 64 KiB at most (a longer one is hashed, see
    /// ``CacheDirectory/frameKey(_:hash:)``) and an entry of 64 KiB at most (a larger one has a file of its own).
    /// A slot or frame header that says more is damage, never an allocation of its size.
    static let largestFrame = FrameHeader.size + Int(UInt16.max) + (64 << 10)
    /// The longest segment a cache writes: 8 MiB and one frame (a migration may pass the segment size by one).
    static let largestFile = (8 << 20) + largestFrame

    let path: String
    private let fileSystem: FileSystem
    /// Open segments, least recently read first. A reader holds the handle while it reads, so a handle dropped
    /// from here (or a segment removed) closes its descriptor only once no read uses it.
    private let open = Locked(LRUTable<UInt32, SegmentHandle>(minimumCapacity: openLimit))

    init(directory: String, fileSystem: FileSystem) {
        path = PathName.join(directory, Self.directoryName)
        self.fileSystem = fileSystem
    }

    /// The file of segment `number`.
    func file(_ number: UInt32) -> String {
        PathName.join(path, CacheSegments.hex(number) + ".seg")
    }

    static func hex(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    /// The number a segment file name stands for.
    static func number(_ name: String) -> UInt32? {
        guard name.utf8.count == 12, name.hasSuffix(".seg") else { return nil }
        return UInt32(name.prefix(8), radix: 16)
    }

    /// Segment `number` open for reading; `nil` when the file is gone (evicted).
    private func handle(_ number: UInt32) throws(StoreError) -> SegmentHandle? {
        if let handle = open.withLock({ table -> SegmentHandle? in
            guard let handle = table[number] else { return nil }
            table.touch(number)
            return handle
        }) { return handle }
        guard let fd = try openFile(number) else { return nil }
        let fresh = SegmentHandle(fd: fd, fileSystem: fileSystem)
        return open.withLock { table -> SegmentHandle in
            if let existing = table[number] { return existing }   // another thread opened it meanwhile
            table.set(number, fresh)
            while table.count > Self.openLimit, let oldest = table.leastRecent { table.remove(oldest.key) }
            return fresh
        }
    }

    /// Segment `number`'s file, open for reading; `nil` when it is gone, or when what has its name is no
    /// regular file (a symbolic link, a directory or a device planted there: damage, read as a segment gone,
    /// whose entries are misses and which eviction passes over, removing the name).
    func openFile(_ number: UInt32) throws(StoreError) -> FileDescriptor? {
        let path = file(number)
        let opened: FileDescriptor?
        do {
            opened = try fileSystem.openIfPresent(path, [.readOnly, .noFollow, .nonBlocking])
        } catch where error.code == .symbolicLink {
            return nil
        }
        guard let fd = opened else { return nil }
        let regular: Bool
        do {
            regular = try fileSystem.status(fd, path).isRegularFile
        } catch {
            fileSystem.close(fd)
            throw error
        }
        guard regular else {
            fileSystem.close(fd)
            return nil
        }
        return fd
    }

    /// The `length` bytes at `offset` of segment `number`; `nil` when the segment is gone or shorter, or when
    /// `length` is no frame's.
    func read(_ number: UInt32, offset: Int, length: Int) throws(StoreError) -> [UInt8]? {
        guard length >= FrameHeader.size, length <= Self.largestFrame, offset >= 0 else { return nil }
        guard let handle = try handle(number) else { return nil }
        let bytes = try fileSystem.read(handle.fd, count: length, at: offset, file(number))
        return bytes.count == length ? bytes : nil
    }

    /// Forgets the descriptor of a removed segment (closed once no read holds it).
    func forget(_ number: UInt32) {
        _ = open.withLock { $0.remove(number) }
    }

    /// Forgets the descriptors of the segments numbered in `numbers` (one pass over the few kept open, however
    /// many numbers the range holds).
    func forget(_ numbers: Range<UInt32>) {
        open.withLock { table in
            var gone: [UInt32] = []
            table.forEach { number, _ in
                if numbers.contains(number) { gone.append(number) }
                return true
            }
            for number in gone { _ = table.remove(number) }
        }
    }

    /// The numbers of the segment files there are.
    func numbers() throws(StoreError) -> [UInt32] {
        (try fileSystem.list(path) ?? []).compactMap(Self.number).sorted()
    }
}

/// An open segment file, closed when the last reference goes.
final class SegmentHandle: Sendable {
    let fd: FileDescriptor
    private let fileSystem: FileSystem

    init(fd: FileDescriptor, fileSystem: FileSystem) {
        self.fd = fd
        self.fileSystem = fileSystem
    }

    deinit { fileSystem.close(fd) }
}
