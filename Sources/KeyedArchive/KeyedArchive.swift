// KeyedArchive: work in progress.
