import BinaryPlist
import Foundation
import KeyedArchive
import FormCache

/// `keyed-bench w1 N` and `keyed-bench w2 N`: ours, Foundation's NSKeyedArchiver, PropertyListEncoder and
/// JSONEncoder on the same model, alternating within one run.
enum ShapesWorkload {
    struct Implementation {
        let name: String
        let encode: () throws -> Int  // returns archive bytes
        let decode: () throws -> Void
        /// The last archive `encode` wrote.
        let archive: () -> [UInt8]
    }

    static func run(workload: String, count: Int, rounds: Int, only: Set<String>?) throws {
        let impls = workload == "w1" ? try shapes(count) : try forms(count)
        let selected = impls.filter { only?.contains($0.name) ?? true }
        var encode: [String: Measurement] = [:]
        var decode: [String: Measurement] = [:]
        var plistRead = Measurement(impl: "ours", op: "plist-read", workload: workload, n: count)
        var plistReadKept = plistRead
        for impl in selected {
            encode[impl.name] = Measurement(impl: impl.name, op: "encode", workload: workload, n: count)
            decode[impl.name] = Measurement(impl: impl.name, op: "decode", workload: workload, n: count)
        }
        for round in 0..<rounds {
            let order = round % 2 == 0 ? selected : selected.reversed()
            for impl in order {
                var size = 0
                encode[impl.name]?.samples.append(try timeMS { size = try impl.encode() })
                encode[impl.name]?.bytes = size
                decode[impl.name]?.bytes = size
                decode[impl.name]?.samples.append(try timeMS { try impl.decode() })
                if impl.name == "ours" {
                    // The same bytes read as a plain property list tree, freed inside the timing as the
                    // decode's objects are: what a keyed decode adds to reading its plist.
                    let archive = impl.archive()
                    plistRead.bytes = archive.count
                    plistRead.samples.append(try timeMS { blackHole(try PropertyList.decode(archive)) })
                    var tree: PlistValue = .null
                    plistReadKept.samples.append(try timeMS { tree = try PropertyList.decode(archive) })
                    blackHole(tree)
                }
            }
        }
        let all = selected.flatMap { [encode[$0.name], decode[$0.name]].compactMap { $0 } }
        report(all) { _ in "foundation" }
        if let ours = decode["ours"], !plistRead.samples.isEmpty {
            print(String(format: "ours decode / plist read of the same %d bytes (PropertyList.decode, tree freed): %.2f ms / %.2f ms = %.2fx",
                         plistRead.bytes, ours.median, plistRead.median, ours.median / plistRead.median))
            print(String(format: "ours decode / plist read of the same bytes, the tree freed outside the timing (as keyed-bench raw times it): %.2f ms / %.2f ms = %.2fx",
                         ours.median, plistReadKept.median, ours.median / plistReadKept.median))
        }
    }

    /// Peak memory of one decode per implementation, each measured in a fresh child process
    /// (`keyed-bench decode-file IMPL WORKLOAD FILE`) so that no earlier allocation hides it.
    static func memory(workload: String, count: Int, only: Set<String>?) throws {
        let impls = workload == "w1" ? try shapes(count) : try forms(count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyed-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for impl in impls where only?.contains(impl.name) ?? true {
            _ = try impl.encode()
            let file = directory.appendingPathComponent("\(impl.name).archive")
            try Data(impl.archive()).write(to: file)
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            child.arguments = ["decode-file", impl.name, workload, file.path]
            let pipe = Pipe()
            child.standardOutput = pipe
            try child.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            print(output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The child side of ``memory(workload:count:only:)``: reads FILE, then decodes it once and reports the
    /// peak resident memory above what was resident before the decode.
    static func decodeFile(impl: String, workload: String, path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let data = Data(bytes)
        let registry = ClassRegistry([BenchForm.self])
        let before = currentResidentBytes()
        let hwmBefore = peakResidentBytes()
        let fileBefore = residentFileBytes()
        switch (impl, workload) {
        case ("ours", "w1"): blackHole(try KeyedUnarchiver.unarchivedObject(ofType: BenchContents.self, from: bytes, registry: benchRegistry))
        case ("ours", _): blackHole(try KeyedUnarchiver.unarchivedObject(ofType: [BenchForm].self, from: bytes, registry: registry))
        case ("foundation", _): blackHole(try FoundationArchiving.unarchive(data))
        case ("plist-codable", "w1"): blackHole(try PropertyListDecoder().decode(CContents.self, from: data))
        case ("plist-codable", _): blackHole(try PropertyListDecoder().decode([CForm].self, from: data))
        case ("json-codable", "w1"): blackHole(try JSONDecoder().decode(CContents.self, from: data))
        case ("json-codable", _): blackHole(try JSONDecoder().decode([CForm].self, from: data))
        default: throw BenchError("unknown implementation \(impl)")
        }
        let peak = max(peakResidentBytes() - before, 0)
        // Pages of code and other files first touched by the decode: part of the peak, but not memory the
        // decode allocated (a larger decoder touches more of its code).
        let fileDelta = residentFileBytes() - fileBefore
        print("MEMORY impl=\(impl) op=decode workload=\(workload) archive_bytes=\(bytes.count) peak_extra_bytes=\(peak) "
              + "ratio=\(String(format: "%.2f", Double(peak) / Double(bytes.count))) (peak before decode exceeded resident by \(hwmBefore - before); "
              + "file-backed pages touched: \(fileDelta) bytes)")
    }

    /// The last archive an implementation wrote (benchmark-only scratch, used from one thread).
    final class LastArchive: @unchecked Sendable {
        var data = Data()
    }

    /// Foundation's NSKeyedArchiver on `foundationRoot`, and PropertyListEncoder / JSONEncoder on `codable`.
    static func baselines<Model: Codable>(foundationRoot: NSObject, codable: Model) -> [Implementation] {
        let foundation = LastArchive(), plist = LastArchive(), json = LastArchive()
        return [
            Implementation(name: "foundation", encode: {
                foundation.data = FoundationArchiving.archive(foundationRoot)
                return foundation.data.count
            }, decode: {
                blackHole(try FoundationArchiving.unarchive(foundation.data))
            }, archive: { [UInt8](foundation.data) }),
            Implementation(name: "plist-codable", encode: {
                let encoder = PropertyListEncoder()
                encoder.outputFormat = .binary
                plist.data = try encoder.encode(codable)
                return plist.data.count
            }, decode: {
                blackHole(try PropertyListDecoder().decode(Model.self, from: plist.data))
            }, archive: { [UInt8](plist.data) }),
            Implementation(name: "json-codable", encode: {
                json.data = try JSONEncoder().encode(codable)
                return json.data.count
            }, decode: {
                blackHole(try JSONDecoder().decode(Model.self, from: json.data))
            }, archive: { [UInt8](json.data) }),
        ]
    }

    // MARK: W1: shapes

    static func shapes(_ n: Int) throws -> [Implementation] {
        let style = BenchStyle(name: "Default Stroke", strokeWidth: 1.5)
        var ours: [any BenchShape] = []
        ours.reserveCapacity(n)
        let fstyle = FStyle(name: "Default Stroke", strokeWidth: 1.5)
        var theirs: [NSObject] = []
        theirs.reserveCapacity(n)
        var codable: [CShape] = []
        codable.reserveCapacity(n)
        for i in 0..<n {
            let d = Double(i)
            let styled = i % 10 == 0
            let cs = styled ? CStyle(name: "Default Stroke", strokeWidth: 1.5) : nil
            switch i % 3 {
            case 0:
                ours.append(BenchCircle(x: d, y: d + 1, radius: 5 + d, style: styled ? style : nil))
                theirs.append(FCircle(x: d, y: d + 1, radius: 5 + d, style: styled ? fstyle : nil))
                codable.append(.circle(CCircle(x: d, y: d + 1, radius: 5 + d, style: cs)))
            case 1:
                ours.append(BenchRectangle(x: d, y: d + 2, width: 10, height: 20 + d, style: styled ? style : nil))
                theirs.append(FRectangle(x: d, y: d + 2, width: 10, height: 20 + d, style: styled ? fstyle : nil))
                codable.append(.rectangle(CRectangle(x: d, y: d + 2, width: 10, height: 20 + d, style: cs)))
            default:
                ours.append(BenchRoundedRectangle(x: d, y: d + 3, width: 30, height: 40 + d, cornerRadius: 4, style: styled ? style : nil))
                theirs.append(FRoundedRectangle(x: d, y: d + 3, width: 30, height: 40 + d, cornerRadius: 4, style: styled ? fstyle : nil))
                codable.append(.roundedRectangle(CRoundedRectangle(x: d, y: d + 3, width: 30, height: 40 + d, cornerRadius: 4, style: cs)))
            }
        }
        let contents = BenchContents(shapes: ours)
        let fcontents = FContents(shapes: theirs)
        let ccontents = CContents(shapes: codable)

        // Check once that every implementation restores what it wrote.
        let ourBytes = try KeyedArchiver.archivedData(withRootObject: contents)
        guard let back = try KeyedUnarchiver.unarchivedObject(ofType: BenchContents.self, from: ourBytes, registry: benchRegistry),
              back.shapes.count == n, n == 0 || type(of: back.shapes[n - 1]) == type(of: ours[n - 1]) else {
            throw BenchError("our archive did not restore \(n) shapes with their types")
        }
        if n > 10, let s0 = back.shapes[0].style, let s10 = back.shapes[10].style, s0 !== s10 {
            throw BenchError("the shared Style was not restored as one instance")
        }
        let theirData = FoundationArchiving.archive(fcontents)
        guard (try FoundationArchiving.unarchive(theirData) as? FContents)?.shapes.count == n else {
            throw BenchError("Foundation did not restore \(n) shapes")
        }

        var ourArchive = ourBytes
        return [
            Implementation(name: "ours", encode: {
                ourArchive = try KeyedArchiver.archivedData(withRootObject: contents)
                return ourArchive.count
            }, decode: {
                blackHole(try KeyedUnarchiver.unarchivedObject(ofType: BenchContents.self, from: ourArchive, registry: benchRegistry))
            }, archive: { ourArchive }),
        ] + baselines(foundationRoot: fcontents, codable: ccontents)
    }

    // MARK: W2: form records

    static func forms(_ n: Int) throws -> [Implementation] {
        let note = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 2).prefix(100)
        var ours: [BenchForm] = []
        var theirs: [FForm] = []
        var codable: [CForm] = []
        for i in 0..<n {
            let id = String(format: "%08X-1111-4222-8333-%012X", i, i &* 7919)
            let registered = Date(timeIntervalSinceReferenceDate: 780_000_000 + Double(i))
            let expires = registered.addingTimeInterval(30 * 86_400)
            let name = "Person \(i)"
            let email = "person\(i)@example.org"
            ours.append(BenchForm(id: id, registeredAt: registered, name: name, email: email, note: String(note), expiresAt: expires))
            theirs.append(FForm(id: id, name: name, email: email, note: String(note), registeredAt: registered, expiresAt: expires))
            codable.append(CForm(id: id, registeredAt: registered, name: name, email: email, note: String(note), expiresAt: expires))
        }
        let registry = ClassRegistry([BenchForm.self])
        var ourArchive = try KeyedArchiver.archivedData(withRootObject: ours)
        guard try KeyedUnarchiver.unarchivedObject(ofType: [BenchForm].self, from: ourArchive, registry: registry)?.count == n else {
            throw BenchError("our archive did not restore \(n) records")
        }
        return [
            Implementation(name: "ours", encode: {
                ourArchive = try KeyedArchiver.archivedData(withRootObject: ours)
                return ourArchive.count
            }, decode: {
                blackHole(try KeyedUnarchiver.unarchivedObject(ofType: [BenchForm].self, from: ourArchive, registry: registry))
            }, archive: { ourArchive }),
        ] + baselines(foundationRoot: theirs as NSArray, codable: codable)
    }
}

final class BenchForm: KeyedArchivable {
    static var archivedClassName: String { "FormRecord" }
    var id: String, registeredAt: Date, name: String, email: String, note: String, expiresAt: Date
    init(id: String, registeredAt: Date, name: String, email: String, note: String, expiresAt: Date) {
        (self.id, self.registeredAt, self.name, self.email, self.note, self.expiresAt) = (id, registeredAt, name, email, note, expiresAt)
    }
    init(coder: KeyedUnarchiver) throws {
        id = try coder.decode(String.self, forKey: "id")
        registeredAt = try coder.decode(Date.self, forKey: "registeredAt")
        name = try coder.decode(String.self, forKey: "name")
        email = try coder.decode(String.self, forKey: "email")
        note = try coder.decode(String.self, forKey: "note")
        expiresAt = try coder.decode(Date.self, forKey: "expiresAt")
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(registeredAt, forKey: "registeredAt")
        coder.encode(name, forKey: "name")
        coder.encode(email, forKey: "email")
        coder.encode(note, forKey: "note")
        coder.encode(expiresAt, forKey: "expiresAt")
    }
}

extension ShapesWorkload {
    /// Repeats our W1 encode or decode alone, for a profiler (`keyed-bench w1-profile N encode|decode|decode-generic`).
    static func profile(_ op: String, count: Int, repeats: Int) throws {
        let style = BenchStyle(name: "Default Stroke", strokeWidth: 1.5)
        var shapes: [any BenchShape] = []
        for i in 0..<count {
            let d = Double(i)
            let s = i % 10 == 0 ? style : nil
            switch i % 3 {
            case 0: shapes.append(BenchCircle(x: d, y: d + 1, radius: 5 + d, style: s))
            case 1: shapes.append(BenchRectangle(x: d, y: d + 2, width: 10, height: 20 + d, style: s))
            default: shapes.append(BenchRoundedRectangle(x: d, y: d + 3, width: 30, height: 40 + d, cornerRadius: 4, style: s))
            }
        }
        let contents = BenchContents(shapes: shapes)
        let bytes = try KeyedArchiver.archivedData(withRootObject: contents)
        for _ in 0..<repeats {
            if op == "encode" {
                blackHole(try KeyedArchiver.archivedData(withRootObject: contents))
            } else if op == "decode-generic" {
                // No classes registered: what a reader of archives it did not write decodes (every object an
                // `ArchivedObject`).
                blackHole(try KeyedUnarchiver.unarchivedObject(ofTypes: [ArchivedObject.self], from: bytes,
                                                               registry: ClassRegistry.standard.allowingUnknownClasses()))
            } else {
                blackHole(try KeyedUnarchiver.unarchivedObject(ofType: BenchContents.self, from: bytes, registry: benchRegistry))
            }
        }
    }
}

extension ShapesWorkload {
    /// Repeats our W2 encode or decode alone, for a profiler (`keyed-bench w2-profile N encode|decode`).
    static func formsProfile(_ op: String, count: Int, repeats: Int) throws {
        let note = String(String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 2).prefix(100))
        var forms: [BenchForm] = []
        for i in 0..<count {
            let registered = Date(timeIntervalSinceReferenceDate: 780_000_000 + Double(i))
            forms.append(BenchForm(id: String(format: "%08X-1111-4222-8333-%012X", i, i &* 7919), registeredAt: registered,
                                   name: "Person \(i)", email: "person\(i)@example.org", note: note,
                                   expiresAt: registered.addingTimeInterval(30 * 86_400)))
        }
        let registry = ClassRegistry([BenchForm.self])
        let bytes = try KeyedArchiver.archivedData(withRootObject: forms)
        for _ in 0..<repeats {
            if op == "encode" {
                blackHole(try KeyedArchiver.archivedData(withRootObject: forms))
            } else {
                blackHole(try KeyedUnarchiver.unarchivedObject(ofType: [BenchForm].self, from: bytes, registry: registry))
            }
        }
    }
}

extension ShapesWorkload {
    /// `keyed-bench w1-scale`: ours on 100,000 and 1,000,000 shapes, alternating in one run, and the ratio
    /// of their medians (the target is at most 11x for 10x the shapes).
    static func scale(rounds: Int) throws {
        let small = try shapes(100_000).filter { $0.name == "ours" }
        let large = try shapes(1_000_000).filter { $0.name == "ours" }
        guard let s = small.first, let l = large.first else { return }
        var m = [Measurement(impl: "ours", op: "encode", workload: "w1", n: 100_000),
                 Measurement(impl: "ours", op: "decode", workload: "w1", n: 100_000),
                 Measurement(impl: "ours", op: "encode", workload: "w1", n: 1_000_000),
                 Measurement(impl: "ours", op: "decode", workload: "w1", n: 1_000_000)]
        for round in 0..<rounds {
            for impl in round % 2 == 0 ? [s, l] : [l, s] {
                let base = impl.archive().count == s.archive().count ? 0 : 2
                var size = 0
                m[base].samples.append(try timeMS { size = try impl.encode() })
                m[base + 1].samples.append(try timeMS { try impl.decode() })
                m[base].bytes = size
                m[base + 1].bytes = size
            }
        }
        report(m) { _ in nil }
        print(String(format: "1,000,000 / 100,000 shapes: encode %.1fx, decode %.1fx the time",
                     m[2].median / m[0].median, m[3].median / m[1].median))
    }
}
