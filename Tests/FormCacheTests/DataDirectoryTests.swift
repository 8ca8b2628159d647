import FormCache
import Foundation
import Testing
@testable import ArchiveStore

/// Where `formcache` keeps its store: `FORMCACHE_HOME`, then the platform's data directory, or an app group's.
/// Each test states what it expects on Apple platforms and elsewhere.
@Suite("FormCache: data directory")
struct DataDirectoryTests {
    let apple = UserDirectories.isApplePlatform

    @Test func appHomeWinsOverEverything() throws {
        let env = ["FORMCACHE_HOME": "/tmp/fc", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(try DataDirectory.resolve(application: "formcache", environment: env) == "/tmp/fc")
    }

    @Test func xdgDataHomeComesNextOutsideApplePlatforms() throws {
        let env = ["FORMCACHE_HOME": "", "XDG_DATA_HOME": "/xdg/", "HOME": "/home/u"]
        #expect(try DataDirectory.resolve(application: "formcache", environment: env)
            == (apple ? "/home/u/Library/Application Support/formcache" : "/xdg/formcache"))
    }

    @Test func aRelativeXDGDataHomeIsIgnored() throws {
        let env = ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]
        #expect(try DataDirectory.resolve(application: "formcache", environment: env)
            == (apple ? "/home/u/Library/Application Support/formcache" : "/home/u/.local/share/formcache"))
    }

    @Test func theHomeFallbackIsApplicationSupportOrLocalShare() throws {
        #expect(try DataDirectory.resolve(application: "formcache", environment: ["HOME": "/home/u"])
            == (apple ? "/home/u/Library/Application Support/formcache" : "/home/u/.local/share/formcache"))
    }

    /// On Linux there are no app groups: `FormCache(appGroup:)` says so and asks for a directory.
    @Test func withoutAppGroupsAFormCacheInAGroupIsNoDataDirectory() throws {
        guard !UserDirectories.isApplePlatform else { return }
        let formError = #expect(throws: StoreError.self) { _ = try FormCache(appGroup: "group.x") }
        #expect(formError?.code == .noDataDirectory)
        #expect(formError?.reason == "there are no app group containers on this platform (app group 'group.x'); give a directory explicitly")
    }
}
