import ArchiveStore
import CommandLineSupport
import FormCache

extension CommandFailure {
    /// The exit status and message (`<reason>` and a `Hint:` line) for a store error.
    init(_ error: StoreError) {
        let status: Int32
        var hint: String?
        switch error.code {
        case .notFound:
            status = ExitStatus.failure
            hint = "'formcache list --include-expired' shows every stored id."
        case .duplicateID:
            status = ExitStatus.failure
            hint = "choose another --id, or leave it out to get a new UUID."
        case .invalidArgument:
            status = ExitStatus.usage
        case .corrupt, .unsupportedVersion:
            status = ExitStatus.dataError
            hint = "the store was not changed. Run 'formcache move-aside' to rename it and start a new one."
        case .invalidArchive:
            status = ExitStatus.dataError
            hint = "the file must be a keyed archive of FormModel objects (one object or an array)."
        case .locked:
            status = ExitStatus.temporaryFailure
            hint = "another formcache is using the store; try again, or raise FORMCACHE_LOCK_TIMEOUT (seconds)."
        case .symbolicLink:
            status = ExitStatus.ioError
            hint = "the store's files may not be symbolic links; point FORMCACHE_HOME at the real directory."
        case .hardLink:
            status = ExitStatus.ioError
            hint = "the store's files may not have other hard links; remove the other name or the file."
        case .notRegularFile:
            status = ExitStatus.ioError
            hint = "a FIFO, device or directory is where one of the store's files should be; remove it."
        case .damagedCommit:
            status = ExitStatus.dataError
            hint = "the store was not changed. 'formcache recover' keeps the newest commit (the file as it was stays as FormCache.cache.before-recovery); 'formcache move-aside' starts a new store."
        case .noDataDirectory:
            status = ExitStatus.ioError
            hint = "set FORMCACHE_HOME to the directory to use."
        default:
            status = ExitStatus.ioError
            hint = "check that the data directory ('formcache path') is writable and the disk is not full."
        }
        var message = error.description
        if let hint { message += "\nHint: " + hint }
        self.init(status: status, message)
    }
}
