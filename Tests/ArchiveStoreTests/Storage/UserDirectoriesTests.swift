import Foundation
import Testing
@testable import ArchiveStore

/// Each test states what it expects on Apple platforms and elsewhere, so that every platform checks
/// something.
@Suite("Storage floor: data and cache directories")
struct UserDirectoriesTests {
    let apple = UserDirectories.isApplePlatform

    @Test func theCacheDirectoryIsLibraryCachesOrXDGCacheHome() throws {
        #expect(try UserDirectories.caches(name: "thumbs", environment: ["HOME": "/home/u"])
            == (apple ? "/home/u/Library/Caches/thumbs" : "/home/u/.cache/thumbs"))
        #expect(try UserDirectories.caches(name: "thumbs", environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "/var/c"])
            == (apple ? "/home/u/Library/Caches/thumbs" : "/var/c/thumbs"))
        #expect(try UserDirectories.caches(name: "thumbs", environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "c"])
            == (apple ? "/home/u/Library/Caches/thumbs" : "/home/u/.cache/thumbs"))
        #expect(try UserDirectories.standard(.caches, named: "thumbs", appGroup: nil, environment: ["HOME": "/h"])
            == (apple ? "/h/Library/Caches/thumbs" : "/h/.cache/thumbs"))
    }

    /// A path whose bytes were not UTF-8 (marked with NUL by the environment reader) is refused, never
    /// rewritten into another directory.
    @Test func aNonUTF8PathIsRefused() throws {
        let error = #expect(throws: StoreError.self) {
            try UserDirectories.caches(name: "x", environment: ["HOME": "\u{0}/home/\u{FFFD}"])
        }
        #expect(error?.code == .invalidArgument)
    }

    /// Where there is no home directory at all (no `HOME`, no password-database entry: a service account,
    /// Android, WASI), the data and cache directories are an error that asks for an explicit one, never a
    /// relative or made-up path.
    @Test func noHomeAnywhereAsksForAnExplicitDirectory() throws {
        let noEntry: () -> String? = { nil }
        for environment in [[:], ["HOME": ""], ["XDG_DATA_HOME": "relative", "XDG_CACHE_HOME": "relative"]] {
            let data = #expect(throws: StoreError.self) {
                try UserDirectories.data(application: "formcache", environment: environment, passwordHome: noEntry)
            }
            #expect(data?.code == .noDataDirectory)
            #expect(data?.reason.contains("give a directory explicitly") == true)
            let caches = #expect(throws: StoreError.self) {
                try UserDirectories.caches(name: "thumbs", environment: environment, passwordHome: noEntry)
            }
            #expect(caches?.code == .noDataDirectory)
        }
        // The password database's home is used when HOME is missing, and HOME wins over it.
        #expect(try UserDirectories.caches(name: "t", environment: [:], passwordHome: { "/pw" })
            == (apple ? "/pw/Library/Caches/t" : "/pw/.cache/t"))
        #expect(try UserDirectories.caches(name: "t", environment: ["HOME": "/h"], passwordHome: { "/pw" })
            == (apple ? "/h/Library/Caches/t" : "/h/.cache/t"))
    }
}

@Suite("Time to live")
struct TimeToLiveTests {
    @Test(arguments: [("45s", Int64(45)), ("90m", 5_400), ("12h", 43_200), ("30d", 2_592_000), ("007s", 7)])
    func parsesTimeToLive(text: String, seconds: Int64) throws {
        #expect(try TimeToLive(parsing: text).seconds == seconds)
    }

    @Test(arguments: ["", "s", "10", "0s", "-5m", "5 m", "5w", "1.5h", "99999999999999999999d", "40000d", "５s"])
    func rejectsMalformedTimeToLive(text: String) {
        let error = #expect(throws: StoreError.self) { try TimeToLive(parsing: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func timeToLiveDescriptionIsShortestExactForm() throws {
        #expect(TimeToLive.defaultValue.description == "30d")
        #expect(try TimeToLive(parsing: "120m").description == "2h")
        #expect(try TimeToLive(parsing: "61s").description == "61s")
    }
}
