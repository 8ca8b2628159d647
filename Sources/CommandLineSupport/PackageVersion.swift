/// The package's version: what `keyedarchive --version` and `formcache --version` print, kept in this one place.
///
/// A release changes it here and adds its section to `CHANGELOG.md`; the release's tag is the same string.
package enum PackageVersion {
    /// The version of this release, as its tag spells it (`0.1.0`).
    package static let current = "0.1.0"
}
