#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The file-system path of a file URL, for the engines' `URL` initializers.
///
/// One rule for every engine's location: **a URL names what the engine creates and owns.** An
/// ``ArchiveRepository``'s is its store file (as SwiftData's `ModelConfiguration(url:)` and Core Data's store
/// URL are), beside which it keeps its index and lock files (the store file's name with `.index…` and `.lock`
/// added); an ``ArchiveCache``'s is its directory, which is the cache's alone; a `FormCache`'s is its data
/// directory, which holds its store file. Missing directories on the way are created (mode 0700) at the first
/// write.
package enum FileURL {
    /// The path of `url`, a file URL, as the file system spells it.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` for a URL that is not a file URL (`https:`...) or has an
    ///   empty path.
    package static func path(of url: URL) throws(StoreError) -> String {
        guard url.isFileURL else {
            throw StoreError(.invalidArgument, "\(url.absoluteString) is not a file URL: a store's location is a file URL (URL(fileURLWithPath:))")
        }
        let path = url.withUnsafeFileSystemRepresentation { representation in
            representation.map { String(cString: $0) } ?? ""
        }
        guard !path.isEmpty else { throw StoreError(.invalidArgument, "\(url.absoluteString) has no path") }
        return path
    }

    /// The file URL of the directory at `path`.
    package static func directory(_ path: String) -> URL { URL(fileURLWithPath: path, isDirectory: true) }
}

extension ArchiveRepository {
    /// A repository kept in the store file at `url` (created, with its directory, on the first write): the same
    /// repository as ``init(path:options:)`` with the URL's path. The URL names the store file; the repository
    /// keeps its index and lock files beside it.
    ///
    /// ```swift
    /// let directory = try ArchiveRepository<Workout>.standardDirectoryURL(named: "com.example.workouts")
    /// let workouts = try ArchiveRepository<Workout>(url: directory.appendingPathComponent("Workouts.archive"))
    /// ```
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when `url` is not a file URL.
    ///
    /// Mirrors SwiftData's `ModelConfiguration(url:)` and Core Data's `NSPersistentStoreDescription(url:)`.
    public convenience init(url: URL, options: RepositoryOptions = RepositoryOptions()) throws(StoreError) {
        self.init(path: try FileURL.path(of: url), options: options)
    }

    /// ``standardDirectory(named:appGroup:)`` as a file URL.
    public static func standardDirectoryURL(named name: String, appGroup: String? = nil) throws(StoreError) -> URL {
        FileURL.directory(try standardDirectory(named: name, appGroup: appGroup))
    }

    /// The store file, as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: false) }
}

extension ArchiveCache {
    /// Opens (creating it, mode 0700) the cache in the directory at `directory`, a file URL: the same cache as
    /// ``init(directory:registry:options:)-(String,_,_)`` with its path. The directory is the cache's alone.
    ///
    /// ```swift
    /// let drawings = try ArchiveCache<Drawing>(directory: ArchiveCache<Drawing>.standardDirectoryURL(named: "com.example.drawings"))
    /// ```
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when `directory` is not a file URL; the errors of opening.
    public convenience init(directory: URL, registry: ClassRegistry = .standard,
                            options: CacheOptions = CacheOptions()) throws(StoreError) {
        try self.init(directory: try FileURL.path(of: directory), registry: registry, options: options)
    }

    /// ``standardDirectory(named:appGroup:)`` as a file URL.
    public static func standardDirectoryURL(named name: String, appGroup: String? = nil) throws(StoreError) -> URL {
        FileURL.directory(try standardDirectory(named: name, appGroup: appGroup))
    }

    /// The cache's directory, as a file URL.
    public var directoryURL: URL { FileURL.directory(directory) }
}
