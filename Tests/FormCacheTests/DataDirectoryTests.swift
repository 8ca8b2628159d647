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

/// `FormCache(directory: URL)` and the locked-device simulation through FormCache's options.
@Suite("FormCache: URLs and a locked device")
struct FormCacheURLTests {
    @Test func aFormCacheAtADirectoryURLKeepsItsStoreFileThere() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("formcache url \(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let forms = try FormCache(directory: root)
        let record = try forms.add(name: "signup", fields: ["email": "a@example.com"])
        #expect(forms.path == root.path + "/FormCache.cache")
        #expect(forms.directoryURL.path == root.path)
        #expect(try FormCache(directory: root.path).get(record.id).name == "signup")
        let web = try #require(URL(string: "https://example.com/forms"))
        let error = #expect(throws: StoreError.self) { _ = try FormCache(directory: web) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func aLockedDeviceRefusesACompleteFormCacheAndLosesNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("formcache locked \(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let device = LockedDeviceSimulation()
        var options = RepositoryOptions()
        options.fileProtection = .complete
        options.lockedDeviceSimulation = device
        let forms = try FormCache(directory: root, options: options)
        let record = try forms.add(name: "kept")
        device.isLocked = true
        let error = #expect(throws: StoreError.self) { try forms.add(name: "refused") }
        #expect(error?.code == .protectedDataUnavailable)
        device.isLocked = false
        #expect(try forms.list().map(\.id) == [record.id])
    }
}
