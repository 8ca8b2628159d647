import ArchiveStore

/// Where a tool keeps its data: the first that applies of
///
/// 1. `$<APP>_HOME` (for FormCache, `$FORMCACHE_HOME`), used as given;
/// 2. on Apple platforms, `~/Library/Application Support/<app>` (in an iOS, tvOS, watchOS or visionOS app,
///    the app container's);
/// 3. elsewhere, `$XDG_DATA_HOME/<app>` when `XDG_DATA_HOME` is an absolute path (the XDG spec ignores relative
///    ones), else `~/.local/share/<app>`;
///
/// where `~` is `$HOME` or, if that is unset, the home directory in the password database. Without either
/// (a service with no home, Android, WASI), `StoreError.Code.noDataDirectory` asks for `$<APP>_HOME`.
///
/// Nothing is created here; the store creates the directory (mode 0700) on its first write.
///
/// Corresponds to `FileManager.url(for: .applicationSupportDirectory, in: .userDomainMask, ...)`.
package enum DataDirectory {
    /// Resolves the data directory of `application` from `environment`.
    ///
    /// ```swift
    /// let directory = try DataDirectory.resolve(application: "formcache", environment: env)
    /// ```
    package static func resolve(application: String, environment: [String: String]) throws(StoreError) -> String {
        let homeName = application.uppercased() + "_HOME"
        if let home = environment[homeName], !home.isEmpty {
            return try UserDirectories.usable(home, homeName)
        }
        do {
            return try UserDirectories.data(application: application, environment: environment)
        } catch where error.code == .noDataDirectory {
            throw StoreError(.noDataDirectory, "cannot find a home directory: set HOME or \(homeName)")
        }
    }

    /// The data directory of `application` in the shared container of the app group `appGroup`:
    /// `<container>/Library/Application Support/<application>`, which an app and its extensions share.
    ///
    /// - Throws: `StoreError.Code.noDataDirectory` when the app is not entitled to the group (its App Groups
    ///   entitlement does not list it), and where there are no app groups (Linux).
    ///
    /// Corresponds to `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`.
    package static func resolve(application: String, appGroup: String) throws(StoreError) -> String {
        try ArchiveRepository<FormRecord>.standardDirectory(named: application, appGroup: appGroup)
    }
}
