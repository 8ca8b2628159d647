import ArchiveStore
import CommandLineSupport
import FormCache

extension CommandFailure {
    /// The exit status and hint of each store error code; any other code is an I/O error.
    private static let statusAndHint: [StoreError.Code: (status: Int32, hint: String?)] = [
        .notFound: (ExitStatus.failure, "'formcache list --include-expired' shows every stored id."),
        .duplicateID: (ExitStatus.failure, "choose another --id, or leave it out to get a new UUID."),
        .invalidArgument: (ExitStatus.usage, nil),
        .corrupt: (ExitStatus.dataError, "the store was not changed. Run 'formcache move-aside' to rename it and start a new one."),
        .unsupportedVersion: (ExitStatus.dataError, "the store was not changed. Run 'formcache move-aside' to rename it and start a new one."),
        .damagedCommit: (ExitStatus.dataError, "the store was not changed. 'formcache recover' keeps the newest commit (the file as it was stays as FormCache.cache.before-recovery); 'formcache move-aside' starts a new store."),
        .invalidArchive: (ExitStatus.dataError, "the file must be a keyed archive of FormModel objects (one object or an array)."),
        .locked: (ExitStatus.temporaryFailure, "another formcache is using the store; try again, or raise FORMCACHE_LOCK_TIMEOUT (seconds)."),
        .protectedDataUnavailable: (ExitStatus.temporaryFailure, "the store was not changed and is not damaged: the device is locked and its files' data protection keeps them unreadable until it is unlocked; try again then."),
        .symbolicLink: (ExitStatus.ioError, "the store's files may not be symbolic links; point FORMCACHE_HOME at the real directory."),
        .hardLink: (ExitStatus.ioError, "the store's files may not have other hard links; remove the other name or the file."),
        .notRegularFile: (ExitStatus.ioError, "a FIFO, device or directory is where one of the store's files should be; remove it."),
        .noDataDirectory: (ExitStatus.ioError, "set FORMCACHE_HOME to the directory to use."),
    ]

    /// The exit status and message (`<reason>` and a `Hint:` line) for a store error.
    init(_ error: StoreError) {
        let (status, hint) = Self.statusAndHint[error.code]
            ?? (ExitStatus.ioError, "check that the data directory ('formcache path') is writable and the disk is not full.")
        var message = error.description
        if let hint { message += "\nHint: " + hint }
        self.init(status: status, message)
    }
}
