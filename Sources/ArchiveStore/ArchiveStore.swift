// ArchiveStore: work in progress.
