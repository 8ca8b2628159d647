#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// `NSURL` (`NS.base`, `NS.relative`), as `URL`.
extension KeyedUnarchiver {
    /// An `NSURL` object: `NS.relative` resolved against `NS.base` when there is one.
    func decodeNSURL(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        var base: URL?
        if let v = try rawField("NS.base") {
            let b = try anyValue(v, key: "NS.base")
            if b != nil {
                guard let u = b as? URL else { throw invalid("NS.base is not a URL") }
                base = u
            }
        }
        guard let r = try rawField("NS.relative"), let relative = try plainValue(r, key: "NS.relative") as? String
        else { throw invalid("NSURL without an NS.relative string") }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw invalid("NS.relative \"\(relative)\" is not a URL")
        }
        return url
    }
}

extension KeyedArchiver {
    /// An `NSURL` object (`NS.base`, `NS.relative`).
    func urlObject(_ url: URL) -> Int32 {
        withObjectFrame(classUID: { classObject(.url) }) {
            let base = url.baseURL
            addField(keyNode("NS.base"), state.pointee.builder.uid(Int(archiveObject(base))))
            let relative = base == nil ? url.absoluteString : url.relativeString
            addField(keyNode("NS.relative"), state.pointee.builder.uid(Int(stringObject(relative))))
        }
    }
}
