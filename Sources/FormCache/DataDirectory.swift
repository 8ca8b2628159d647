#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArchiveStore

/// Where a tool keeps its data: the first that applies of
///
/// 1. `$<APP>_HOME` (for FormCache, `$FORMCACHE_HOME`), used as given;
/// 2. `$XDG_DATA_HOME/<app>` when `XDG_DATA_HOME` is an absolute path (the XDG spec ignores relative ones);
/// 3. `~/.local/share/<app>` (on macOS `~/Library/Application Support/<app>`), where `~` is `$HOME` or, if that
///    is unset, the home directory in the password database.
///
/// Nothing is created here; the store creates the directory (mode 0700) on its first write.
///
/// Corresponds to `FileManager.url(for: .applicationSupportDirectory, in: .userDomainMask, ...)`.
public enum DataDirectory {
    /// Resolves the data directory of `application` from `environment`.
    ///
    /// ```swift
    /// let directory = try DataDirectory.resolve(application: "formcache", environment: env)
    /// ```
    public static func resolve(application: String, environment: [String: String]) throws(StoreError) -> String {
        let homeName = application.uppercased() + "_HOME"
        if let home = environment[homeName], !home.isEmpty {
            return try usable(home, homeName)
        }
        #if !os(macOS)
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return PathName.join(try usable(xdg, "XDG_DATA_HOME"), application)
        }
        #endif
        if let home = environment["HOME"], !home.isEmpty { _ = try usable(home, "HOME") }
        guard let home = homeDirectory(environment: environment) else {
            throw StoreError(.noDataDirectory, "cannot find a home directory: set HOME or \(application.uppercased())_HOME")
        }
        #if os(macOS)
        return PathName.join(PathName.join(home, "Library/Application Support"), application)
        #else
        return PathName.join(PathName.join(home, ".local/share"), application)
        #endif
    }

    /// `value` as a path, or ``StoreError/Code/invalidArgument`` when it holds NUL: the mark of an
    /// environment value whose bytes are not UTF-8 (`StandardProcess.environment`), which as a `String` would
    /// name another directory, so that two different paths could share one store.
    private static func usable(_ value: String, _ name: String) throws(StoreError) -> String {
        guard !value.utf8.contains(0) else {
            throw StoreError(.invalidArgument, "$\(name) is not valid UTF-8; use a data directory whose path is UTF-8")
        }
        return value
    }

    private static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}
