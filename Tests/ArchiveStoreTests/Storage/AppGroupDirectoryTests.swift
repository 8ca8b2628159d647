import Foundation
import Testing
@testable import ArchiveStore

/// The directories an app shares with its extensions, in an app group's container (found by a stub here: Linux
/// has no app groups).
@Suite("Storage floor: app group directories")
struct AppGroupDirectoryTests {
    static let container = "/private/var/mobile/Containers/Shared/AppGroup/0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"

    static func lookup(_ group: String) -> String? { group == "group.com.example.app" ? container : nil }

    @Test func aCacheGoesInTheContainersLibraryCachesNeverItsRoot() throws {
        #expect(try UserDirectories.standard(.caches, named: "thumbs", appGroup: "group.com.example.app",
                                                            containerLookup: Self.lookup)
            == Self.container + "/Library/Caches/thumbs")
    }

    @Test func aRepositoryGoesInTheContainersApplicationSupport() throws {
        #expect(try UserDirectories.standard(.data, named: "notes", appGroup: "group.com.example.app",
                                                             containerLookup: Self.lookup)
            == Self.container + "/Library/Application Support/notes")
    }

    @Test func aGroupTheAppIsNotEntitledToIsNoDataDirectory() throws {
        let error = #expect(throws: StoreError.self) {
            try UserDirectories.standard(.caches, named: "thumbs", appGroup: "group.other", containerLookup: Self.lookup)
        }
        #expect(error?.code == .noDataDirectory)
        #expect(error?.reason.contains("group.other") == true)
    }

    @Test func anEmptyNameOrGroupIsRefused() throws {
        for (name, group) in [("", "group.com.example.app"), ("..", "group.com.example.app"), ("thumbs", "")] {
            let error = #expect(throws: StoreError.self) {
                try UserDirectories.standard(.caches, named: name, appGroup: group, containerLookup: Self.lookup)
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    /// The real lookup: on Linux there are no app groups, so the engines say so (FormCache: FormCacheTests).
    @Test func withoutAppGroupsTheRealLookupIsNoDataDirectory() throws {
        guard !UserDirectories.isApplePlatform else { return }
        let cacheError = #expect(throws: StoreError.self) { try ArchiveCache<[UInt8]>.standardDirectory(named: "t", appGroup: "group.x") }
        #expect(cacheError?.code == .noDataDirectory)
    }

    @Test func theRepositorysOwnDirectoryIsApplicationSupportOrLocalShare() throws {
        #expect(try UserDirectories.standard(.data, named: "notes", appGroup: nil, environment: ["HOME": "/h"])
            == (UserDirectories.isApplePlatform ? "/h/Library/Application Support/notes" : "/h/.local/share/notes"))
    }
}
