#if canImport(FoundationEssentials)
import FoundationEssentials
#else
// The container of an app group is Foundation's to find: `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`.
import Foundation
#endif

/// The shared container of an app group, where an app and its extensions keep what they share.
///
/// Mirrors `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`.
package enum AppGroupContainer {
    /// The container's path for the app group `identifier` (`group.com.example.app`): `nil` when the app is not
    /// entitled to the group (its App Groups entitlement does not list it), and always where there are no app
    /// groups (Linux).
    package static func path(forGroup identifier: String) -> String? {
        #if canImport(Darwin)
        FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)?.path
        #else
        nil
        #endif
    }
}
