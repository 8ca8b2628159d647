// Checks shared by the libFuzzer entry files. This is harness code, not library code: a trap here is how a
// finding reaches libFuzzer, so `fatalError` is used on purpose. Compiled by Fuzz/run.sh together with one
// entry file, against BinaryPlist and ArchiveInspection (plist-JSON) built as instrumented libraries.
import ArchiveInspection
import BinaryPlist

/// Stops the run with `message`: libFuzzer saves the input as a crash artifact.
func finding(_ message: String) -> Never {
    fatalError("FUZZ FINDING: " + message)
}

/// The fuzzer's input as bytes (`start` may be null for the empty input).
func fuzzInput(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// Runs `body`: its value, or `nil` when it threw a ``PlistError``. Any other error is a finding.
func plistErrorOrValue<T>(_ what: String, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch is PlistError {
        return nil
    } catch {
        finding("\(what) threw \(type(of: error)), not PlistError: \(error)")
    }
}

/// Runs `body`, which must not throw at all (a writer given a value a reader produced, or a reader given what
/// our own writer wrote).
func mustSucceed<T>(_ what: String, _ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        finding("\(what) threw \(error)")
    }
}

/// The tree (``PropertyList/decode(_:limits:)``'s, built on the event reader) must be what the reader's events
/// make when an independent builder that checks their nesting rebuilds it (``BinaryPlistEventTree``): the same
/// value, or the same error (code, reason, byte offset and object index); and the public pull reader must
/// report the same events as the package's walk, up to the same error.
func checkWalk(_ document: BinaryPlistDocument) {
    let materialized: Result<PlistValue, PlistError> = Result { () throws(PlistError) in try document.decodeTopObject() }
    let walked: Result<PlistValue, PlistError>
    do {
        walked = .success(try document.withObjects { objects throws in
            try BinaryPlistEventTree.value(of: objects.topObject, in: objects)
        })
    } catch let error as PlistError {
        walked = .failure(error)
    } catch {
        finding("walk threw \(type(of: error)), not PlistError: \(error)")
    }
    guard walked == materialized else { finding("events rebuilt gave \(walked), the tree gave \(materialized)") }
    // The public reader, pulled to its end (or its error), against the package's walk.
    var pulled = 0
    let pullError: PlistError? = document.withEvents { (reader: inout BinaryPlistDocument.EventReader) -> PlistError? in
        do throws(PlistError) {
            while try reader.next() != nil { pulled += 1 }
            // After the end, the reader stays at its end.
            guard try reader.next() == nil else { finding("the reader reported an event after its end") }
            return nil
        } catch {
            do throws(PlistError) {
                if try reader.next() != nil { finding("the reader reported an event after its error") }
            } catch {
                finding("the reader threw again after its error: \(error)")
            }
            return error
        }
    }
    var walkedEvents = 0
    var walkError: PlistError?
    do { try document.walk { _ in walkedEvents += 1 } } catch let error as PlistError { walkError = error } catch {
        finding("walk threw \(type(of: error)), not PlistError")
    }
    guard pulled == walkedEvents, pullError == walkError else { finding("pull reader and walk disagree") }
    if case .failure(let error) = materialized, error != pullError { finding("the tree's error is not the reader's") }
}

/// A reader's result must match what `PropertyList.decodeWithFormat` (format detection) gives.
func checkDetection(_ input: [UInt8], _ value: PlistValue, _ format: PlistFormat) {
    let detected = mustSucceed("PropertyList.decodeWithFormat on input the \(format) reader accepts") {
        try PropertyList.decodeWithFormat(input)
    }
    guard detected.format == format else { finding("format detected as \(detected.format), not \(format)") }
    guard detected.value == value else { finding("PropertyList.decode gave another value than the \(format) reader") }
}

/// Writes `value` with every writer that can hold it, reads it back and requires the same value (after the
/// documented changes of the XML form), and the binary writer to be deterministic.
func checkRoundTrips(_ value: PlistValue) {
    // Binary: every value a reader produces is representable and must come back exactly.
    let binary = mustSucceed("binary writer") { try PropertyList.encode(value, format: .binary) }
    let fromBinary = mustSucceed("binary reader on our binary output") { try BinaryPlistDocument(binary).decodeTopObject() }
    guard fromBinary == value else { finding("binary round trip changed the value") }
    let rewritten = mustSucceed("binary writer, second time") { try PropertyList.encode(fromBinary, format: .binary) }
    guard rewritten == binary else { finding("binary writer is not deterministic across a round trip") }
    // A census that samples every collection of more than 4 members (estimates off either way, the plist
    // written again when it outgrows them) writes the same bytes.
    let sampled = mustSucceed("binary writer, sampling census") { try BinaryPlistWriter().encode(value, sampleSize: 1) }
    guard sampled == binary else { finding("binary writer's sampled census changed the bytes") }

    // XML: when representable, comes back as its documented reading.
    if isXMLRepresentable(value) {
        let xml = mustSucceed("XML writer on a representable value") { try PropertyList.encode(value, format: .xml) }
        let fromXML = mustSucceed("XML reader on our XML output") { try XMLPlistReader().decode(xml) }
        guard fromXML == xmlReading(of: value) else { finding("XML round trip changed the value") }
    }

    // plist-JSON: when representable (no two equal keys), comes back with only NaN payloads lost.
    if isJSONRepresentable(value) {
        let expected = jsonReading(of: value)
        let json = PlistJSON.render(value)
        let fromJSON = mustSucceed("plist-JSON parser on rendered plist-JSON") { try PlistJSON.parse(json) }
        guard fromJSON == expected else { finding("plist-JSON round trip changed the value") }
        let pretty = mustSucceed("plist-JSON parser on pretty plist-JSON") { try PlistJSON.parse(PlistJSON.render(value, pretty: true)) }
        guard pretty == expected else { finding("pretty plist-JSON round trip changed the value") }
    }
}

/// Whether the XML writer documents that it can write `value`: no null or set, string keys only and no two
/// keys with the same bytes (the XML reader merges those), dates with an ISO 8601 form (finite, within 2^62 s).
func isXMLRepresentable(_ value: PlistValue) -> Bool {
    switch value {
    case .null, .set: return false
    case .date(let d):
        let t = d.secondsSinceReferenceDate
        return t.isFinite && t.magnitude <= 4_611_686_018_427_387_904
    case .array(let items): return items.allSatisfy(isXMLRepresentable)
    case .dictionary(let dict):
        var seen = Set<[UInt8]>()
        for entry in dict.entries {
            guard case .string(let key) = entry.key, seen.insert(Array(key.utf8)).inserted,
                isXMLRepresentable(entry.value)
            else { return false }
        }
        return true
    default: return true
    }
}

/// What the XML reader gives back for `value` written as XML: dates rounded down to whole seconds (`-0.0` as
/// `0`), every NaN as the default NaN, a dictionary `{CF$UID: n}` with `n` in 0...2^64-1 as a UID.
func xmlReading(of value: PlistValue) -> PlistValue {
    switch value {
    case .real(let r) where r.isNaN: return .real(.nan)
    case .date(let d):
        let t = d.secondsSinceReferenceDate
        var whole = Int64(t)
        if Double(whole) > t { whole -= 1 }
        return .date(PlistDate(secondsSinceReferenceDate: Double(whole)))
    case .array(let items): return .array(items.map(xmlReading))
    case .dictionary(let dict):
        let entries = dict.entries.map { PlistDictionary.Entry(key: $0.key, value: xmlReading(of: $0.value)) }
        if entries.count == 1, entries[0].key == .string("CF$UID"), case .integer(let n) = entries[0].value,
            let uid = n.uint64Value
        {
            return .uid(PlistUID(uid))
        }
        return .dictionary(PlistDictionary(entries: entries))
    default: return value
    }
}

/// What the plist-JSON parser gives back for `value` rendered as plist-JSON: every NaN real or date as the
/// default NaN (`"nan"` keeps neither sign nor payload).
func jsonReading(of value: PlistValue) -> PlistValue {
    switch value {
    case .real(let r) where r.isNaN: return .real(.nan)
    case .date(let d) where d.secondsSinceReferenceDate.isNaN: return .date(PlistDate(secondsSinceReferenceDate: .nan))
    case .array(let items): return .array(items.map(jsonReading))
    case .set(let items): return .set(items.map(jsonReading))
    case .dictionary(let dict):
        return .dictionary(PlistDictionary(entries: dict.entries.map { .init(key: jsonReading(of: $0.key), value: jsonReading(of: $0.value)) }))
    default: return value
    }
}

/// Whether plist-JSON can hold `value`: no dictionary with two keys equal as the parser reads them back (it
/// refuses them): two reals or dates that are NaNs with different payloads are two keys in the plist and one
/// `"nan"` in plist-JSON (a harness finding at 3,364,640 executions, stop 43).
func isJSONRepresentable(_ value: PlistValue) -> Bool {
    switch value {
    case .array(let items), .set(let items): return items.allSatisfy(isJSONRepresentable)
    case .dictionary(let dict):
        var seen = Set<PlistValue>()
        for entry in dict.entries {
            guard !entry.key.isCollection, seen.insert(jsonReading(of: entry.key)).inserted,
                  isJSONRepresentable(entry.value) else {
                return false
            }
        }
        return true
    default: return true
    }
}
