import TestSupport

/// The states a power cut may leave after a prefix of recorded calls, in the conservative POSIX model of
/// DESIGN-storage.md (the model of SQLite's crash-test VFS and of ALICE, OSDI 2014):
/// - a file's write or truncation survives for certain only if the file was synced after it; otherwise it may
///   be kept, dropped, torn at 512-byte sectors (its first sectors kept, the rest not) or, where it grew the
///   file, leave zeros;
/// - a create, mkdir, rename, link, unlink or rmdir survives for certain only if its directory was synced
///   after it (syncing a file does not make its name durable, and a directory's own name is its parent's);
///   otherwise it is kept or lost; a rename is atomic;
/// - each uncertain call is decided on its own, in any combination; a sector is never torn.
struct CrashModel {
    /// The unit a disk writes atomically.
    static let sector = 512

    /// What a crash state kept of one call.
    enum Variant: Hashable, Sendable {
        case kept
        case dropped
        /// The write's bytes up to the end of its `sectors`th sector.
        case torn(sectors: Int)
        /// The file's size grew, its new bytes are zeros.
        case zeroed
    }

    /// One state: which variant of each call of the prefix it kept, and the tree that makes.
    struct State {
        var point: Int
        var image: CrashImage
        /// The uncertain calls and what this state did with each, for a failure's message.
        var choices: [(call: Int, variant: Variant)]
    }

    let base: CrashImage
    let calls: [RecordedCall]

    /// What the calls before `point` may have left of call `index`: only `.kept` when it is durable.
    func variants(of index: Int, before point: Int) -> [Variant] {
        let later = calls[(index + 1)..<point]
        func directorySynced(_ directory: String) -> Bool { later.contains(.syncDirectory(path: directory)) }
        switch calls[index] {
        case .write(let node, let offset, let bytes):
            if later.contains(.syncFile(node: node)) { return [.kept] }
            var variants: [Variant] = [.kept, .dropped, .zeroed]
            let sectors = (offset + bytes.count - 1) / Self.sector - offset / Self.sector + 1
            if sectors > 1 { variants.append(.torn(sectors: 1)) }
            if sectors > 2 { variants.append(.torn(sectors: sectors - 1)) }
            return variants
        case .truncate(let node, _):
            return later.contains(.syncFile(node: node)) ? [.kept] : [.kept, .dropped]
        case .syncFile, .syncDirectory:
            return [.kept]
        case .create(let path, _, _), .unlink(let path), .removeDirectory(let path), .link(_, let path):
            return directorySynced(CrashImage.parent(path)) ? [.kept] : [.kept, .dropped]
        case .rename(let from, let to):
            let durable = directorySynced(CrashImage.parent(to))
                && (CrashImage.parent(from) == CrashImage.parent(to) || directorySynced(CrashImage.parent(from)))
            return durable ? [.kept] : [.kept, .dropped]
        }
    }

    /// The distinct states a cut after the first `point` calls may leave: every combination of the uncertain
    /// calls' variants when there are at most `exhaustive`, else the structured ones (all kept, all dropped,
    /// each call varied alone from both, when `structured`) and `samples` random combinations drawn with `generator`. `sampled`
    /// says which happened.
    func states(at point: Int, exhaustive: Int, samples: Int, structured: Bool,
                generator: inout SeededGenerator) -> (states: [State], sampled: Bool) {
        let uncertain = (0..<point).compactMap { index -> (Int, [Variant])? in
            let variants = variants(of: index, before: point)
            return variants.count > 1 ? (index, variants) : nil
        }
        var combinations: [[Int]] = []
        var total = 1
        for (_, variants) in uncertain {
            total = total.multipliedReportingOverflow(by: variants.count).overflow ? Int.max : total * variants.count
        }
        let sampled = total > exhaustive
        if !sampled {
            combinations = [[]]
            for (_, variants) in uncertain {
                combinations = combinations.flatMap { prefix in variants.indices.map { prefix + [$0] } }
            }
        } else {
            let kept = uncertain.map { _ in 0 }
            let dropped = uncertain.map { _ in 1 }
            combinations = [kept, dropped]
            for (position, (_, variants)) in uncertain.enumerated() where structured {
                for choice in variants.indices.dropFirst() {
                    var one = kept
                    one[position] = choice
                    combinations.append(one)
                }
                var alone = dropped
                alone[position] = 0
                combinations.append(alone)
            }
            for _ in 0..<samples {
                combinations.append(uncertain.map { generator.below($0.1.count) })
            }
        }
        var seen: Set<[String: CrashImage.Node]> = []
        var states: [State] = []
        for combination in combinations {
            var image = base
            var choices: [(Int, Variant)] = []
            var next = 0
            for index in 0..<point {
                var variant = Variant.kept
                if next < uncertain.count, uncertain[next].0 == index {
                    variant = uncertain[next].1[combination[next]]
                    if variant != .kept { choices.append((index, variant)) }
                    next += 1
                }
                image.apply(calls[index], variant)
            }
            guard seen.insert(image.visible).inserted else { continue }
            states.append(State(point: point, image: image, choices: choices))
        }
        return (states, sampled)
    }
}
