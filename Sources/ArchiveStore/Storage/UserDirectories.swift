import ArchivePlatform

/// Where an application keeps its data and its caches, by each platform's rules.
///
/// | | data (``data(application:environment:)``) | caches (``caches(name:environment:)``) |
/// |---|---|---|
/// | Apple platforms | `~/Library/Application Support/<app>` | `~/Library/Caches/<name>` |
/// | Linux and others | `$XDG_DATA_HOME/<app>`, else `~/.local/share/<app>` | `$XDG_CACHE_HOME/<name>`, else `~/.cache/<name>` |
///
/// In an iOS, tvOS, watchOS or visionOS app `~` is the app's container (its `HOME`), so these are the
/// container's `Library/Application Support` and `Library/Caches`. An `XDG_*` variable counts only when it is
/// an absolute path (the XDG specification ignores relative ones). `~` is `$HOME`, else the effective user's
/// home directory in the password database; where there is neither (a service without a home, Android,
/// WASI), ``StoreError/Code/noDataDirectory`` asks for an explicit directory.
///
/// Nothing is created here.
///
/// Mirrors `FileManager.url(for: .applicationSupportDirectory / .cachesDirectory, in: .userDomainMask, ...)`.
package enum UserDirectories {
    /// Whether this build follows Apple's layout.
    package static var isApplePlatform: Bool {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        true
        #else
        false
        #endif
    }

    /// Refuses a directory name that names no directory of its own (empty, `.` or `..`): `.invalidArgument`,
    /// "a <kind> directory needs a name". Both engines' `standardDirectory(named:)` check through this.
    package static func requireName(_ name: String, kind: String) throws(StoreError) {
        guard !name.isEmpty, name != ".", name != ".." else {
            throw StoreError(.invalidArgument, "a \(kind) directory needs a name")
        }
    }

    /// What an engine's standard directory holds: data a user made (Application Support) or a cache.
    package enum Kind: Sendable {
        case data, caches
    }

    /// The standard directory named `name` of `kind`: in the shared container of `appGroup` when one is given
    /// (the container found by `containerLookup`), else the user's own, read from `environment` (`nil`: the
    /// process's). Behind both engines' `standardDirectory(named:appGroup:)`.
    package static func standard(_ kind: Kind, named name: String, appGroup: String?,
                                 environment: [String: String]? = nil,
                                 containerLookup: (String) -> String? = AppGroupContainer.path(forGroup:)) throws(StoreError) -> String {
        try requireName(name, kind: kind == .data ? "data" : "cache")
        switch (kind, appGroup) {
        case (.data, let group?): return try groupData(application: name, group: group, containerLookup: containerLookup)
        case (.caches, let group?): return try groupCaches(name: name, group: group, containerLookup: containerLookup)
        case (.data, nil): return try data(application: name, environment: environment ?? processEnvironment)
        case (.caches, nil): return try caches(name: name, environment: environment ?? processEnvironment)
        }
    }

    /// The data directory of `application`. `passwordHome` is the password-database lookup (replaced in tests,
    /// to stand for a platform with no home directory).
    package static func data(application: String, environment: [String: String],
                             passwordHome: () -> String? = Kernel.homeDirectoryOfEffectiveUser) throws(StoreError) -> String {
        if !isApplePlatform, let xdg = try absolute(environment, "XDG_DATA_HOME") {
            return PathName.join(xdg, application)
        }
        let home = try requireHome(environment, passwordHome, for: application)
        return PathName.join(home, isApplePlatform ? "Library/Application Support/" + application : ".local/share/" + application)
    }

    /// The cache directory named `name`.
    package static func caches(name: String, environment: [String: String],
                               passwordHome: () -> String? = Kernel.homeDirectoryOfEffectiveUser) throws(StoreError) -> String {
        if !isApplePlatform, let xdg = try absolute(environment, "XDG_CACHE_HOME") {
            return PathName.join(xdg, name)
        }
        let home = try requireHome(environment, passwordHome, for: name)
        return PathName.join(home, isApplePlatform ? "Library/Caches/" + name : ".cache/" + name)
    }

    /// The data directory of `application` in the shared container of app group `group`:
    /// `<container>/Library/Application Support/<application>`. `containerLookup` finds the container (replaced in
    /// tests, which run where there are no app groups).
    package static func groupData(application: String, group: String,
                                  containerLookup: (String) -> String? = AppGroupContainer.path(forGroup:)) throws(StoreError) -> String {
        PathName.join(try groupContainer(group, containerLookup), "Library/Application Support/" + application)
    }

    /// The cache directory named `name` in the shared container of app group `group`:
    /// `<container>/Library/Caches/<name>`, never the container's root (what is there goes into backups).
    package static func groupCaches(name: String, group: String,
                                    containerLookup: (String) -> String? = AppGroupContainer.path(forGroup:)) throws(StoreError) -> String {
        PathName.join(try groupContainer(group, containerLookup), "Library/Caches/" + name)
    }

    private static func groupContainer(_ group: String, _ containerLookup: (String) -> String?) throws(StoreError) -> String {
        guard !group.isEmpty, !group.utf8.contains(0) else { throw StoreError(.invalidArgument, "an app group needs an identifier") }
        guard let container = containerLookup(group), container.hasPrefix("/") else {
            throw StoreError(.noDataDirectory, isApplePlatform
                ? "there is no container for the app group '\(group)': the app's App Groups entitlement must list it"
                : "there are no app group containers on this platform (app group '\(group)'); give a directory explicitly")
        }
        return try usable(container, "app group container")
    }

    /// `$HOME`, else the effective user's home directory in the password database.
    package static func home(environment: [String: String],
                             passwordHome: () -> String? = Kernel.homeDirectoryOfEffectiveUser) throws(StoreError) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return try usable(home, "HOME") }
        return passwordHome()
    }

    /// The process's own environment (see `Kernel.environment()`).
    package static var processEnvironment: [String: String] { Kernel.environment() }

    private static func requireHome(_ environment: [String: String], _ passwordHome: () -> String?,
                                    for name: String) throws(StoreError) -> String {
        guard let home = try home(environment: environment, passwordHome: passwordHome) else {
            throw StoreError(.noDataDirectory, "there is no home directory (no HOME and no password-database entry) to keep '\(name)' in; give a directory explicitly")
        }
        return home
    }

    private static func absolute(_ environment: [String: String], _ name: String) throws(StoreError) -> String? {
        guard let value = environment[name], value.hasPrefix("/") else { return nil }
        return try usable(value, name)
    }

    /// `value` as a path, or ``StoreError/Code/invalidArgument`` when it holds NUL: the mark of an environment
    /// value whose bytes are not UTF-8 (`Kernel.environment()`), which as a `String` would name another
    /// directory, so that two different paths could share one store.
    package static func usable(_ value: String, _ name: String) throws(StoreError) -> String {
        guard !value.utf8.contains(0) else {
            throw StoreError(.invalidArgument, "$\(name) is not valid UTF-8; use a directory whose path is UTF-8")
        }
        return value
    }
}
