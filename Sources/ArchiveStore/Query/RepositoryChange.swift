/// What one commit (or several, when they reached this object together) changed in an ``ArchiveRepository``:
/// the ids of the records added, updated and removed, or ``isReload`` when the change was too large to list or
/// is not known (the store was replaced or rewritten from outside): read what you show again.
///
/// Ids are the records' ids as the store files them: their descriptions (`String(describing: id)`), so a
/// `String` id is itself.
///
/// Mirrors Realm's `RealmCollectionChange` and Core Data's `NSManagedObjectContextObjectsDidChange` user info
/// (inserted, updated and deleted objects), and `NSPersistentStoreRemoteChange` for other processes' changes.
public struct RepositoryChange: Sendable, Hashable {
    /// Ids of records that were not in the store before.
    public var added: [String]
    /// Ids of records written again.
    public var updated: [String]
    /// Ids of records removed.
    public var removed: [String]
    /// Whether the store may have changed in ways not listed: reload everything.
    public var isReload: Bool

    /// The most ids one change lists; a larger change is a reload.
    package static let largestListed = 1000

    /// A change listing these ids (a test's expectation, or a change an app makes up for its own views).
    public init(added: [String] = [], updated: [String] = [], removed: [String] = [], isReload: Bool = false) {
        self.added = added
        self.updated = updated
        self.removed = removed
        self.isReload = isReload
    }

    static let reload = RepositoryChange(isReload: true)

    /// The net change of a journal: a record added then removed is not listed, one removed then added is updated.
    init(_ changes: [TableChange]) {
        self.init()
        guard changes.count <= Self.largestListed else {
            isReload = true
            return
        }
        var order: [[UInt8]] = []
        var net: [[UInt8]: (existed: Bool, exists: Bool)] = [:]
        for change in changes {
            if let known = net[change.key] {
                net[change.key] = (known.existed, change.added != nil)
            } else {
                order.append(change.key)
                net[change.key] = (change.removed != nil, change.added != nil)
            }
        }
        for key in order {
            guard let state = net[key] else { continue }
            let id = String(decoding: key, as: UTF8.self)
            switch (state.existed, state.exists) {
            case (false, true): added.append(id)
            case (true, true): updated.append(id)
            case (true, false): removed.append(id)
            case (false, false): break
            }
        }
    }

    /// Whether nothing is listed and nothing is to be reloaded.
    public var isEmpty: Bool { !isReload && added.isEmpty && updated.isEmpty && removed.isEmpty }
}
