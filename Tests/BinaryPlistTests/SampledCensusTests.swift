import Testing
@testable import BinaryPlist

/// The writer's first census samples collections of more than four times ``BinaryPlistWriter/sampleSize``
/// members; the writer then writes with widths that leave the estimate room, and again after an exact census
/// when the objects outgrow them. Whichever way it goes, the bytes and the errors are the reference writer's.
@Suite("Sampled writer census")
struct SampledCensusTests {
    let writer = BinaryPlistWriter()

    /// `count` records of the raw benchmark's kind (nine keys, every scalar kind).
    func records(_ count: Int) -> PlistValue {
        .array((0..<count).map(record))
    }

    func record(_ i: Int) -> PlistValue {
        let payload: [UInt8] = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
        var entries: [(PlistValue, PlistValue)] = []
        entries.append((.string("id"), .integer(PlistInteger(i))))
        entries.append((.string("name"), .string("Record number \(i)")))
        entries.append((.string("score"), .real(Double(i) * 0.731)))
        entries.append((.string("active"), .bool(i % 3 == 0)))
        entries.append((.string("created"), .date(PlistDate(secondsSinceReferenceDate: Double(i) * 61.5))))
        entries.append((.string("balance"), .integer(PlistInteger(Int64(i) * -7919))))
        entries.append((.string("payload"), .data(payload)))
        entries.append((.string("uid"), .uid(PlistUID(UInt64(i)))))
        entries.append((.string("none"), .null))
        return .dictionary(PlistDictionary(entries))
    }

    /// An array of `count` members in which those a census of `sample` samples (every `count / sample`th from the first) are
    /// `sampled(i)` and the others `other(i)`.
    func skewed(_ count: Int, sample: Int = BinaryPlistWriter.sampleSize, sampled: (Int) -> PlistValue,
                other: (Int) -> PlistValue) -> PlistValue {
        let stride = count / sample
        return .array((0..<count).map { i in i % stride == 0 && i / stride < sample ? sampled(i) : other(i) })
    }

    @Test func samplesOnlyCollectionsOfMoreThanFourTimesTheSample() {
        let small = records(4 * BinaryPlistWriter.sampleSize)
        let large = records(4 * BinaryPlistWriter.sampleSize + 1)
        #expect(writer.census(of: small, sampleSize: BinaryPlistWriter.sampleSize).isExact)
        #expect(!writer.census(of: large, sampleSize: BinaryPlistWriter.sampleSize).isExact)
        #expect(writer.census(of: large, sampleSize: nil).isExact)
    }

    @Test func estimatesEvenRecordsWithinAFewPercent() {
        let value = records(20_000)
        let sampled = writer.census(of: value, sampleSize: BinaryPlistWriter.sampleSize)
        let exact = writer.census(of: value, sampleSize: nil)
        #expect(!sampled.isExact)
        // The array, 20,000 records and their 9 keys and 9 values: 380,001 values, counted exactly from the
        // sample (every record has as many).
        #expect(exact.values == 380_001)
        #expect(sampled.values == exact.values)
        let error = Double(sampled.estimatedSize - exact.estimatedSize) / Double(exact.estimatedSize)
        #expect(abs(error) < 0.03, "estimate \(sampled.estimatedSize), exact \(exact.estimatedSize)")
    }

    @Test func writesEvenRecordsInPlaceFromTheSample() throws {
        let value = records(20_000)
        let sampled = writer.census(of: value, sampleSize: BinaryPlistWriter.sampleSize)
        let bytes = try BinaryPlistWriter.write(value, sampled, exact: false, limits: .default)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        // Written where the estimate put it: the array's capacity is the estimate's, which the file fills most of.
        #expect(bytes.count * 2 >= bytes.capacity, "capacity \(bytes.capacity), \(bytes.count) bytes")
    }

    @Test func writesAgainWhenTheObjectsOutgrowTheEstimatedWidth() throws {
        // The sampled members are integers, the others dictionaries of 40 distinct strings: the sample counts
        // about 5,000 values (2-byte references), the plist has about 200,000 objects (3 bytes).
        let value = skewed(5_000, sampled: { .integer(PlistInteger($0)) }, other: { i in
            .dictionary(PlistDictionary((0..<20).map { (PlistValue.string("k\(i)-\($0)"), PlistValue.string("v\(i)-\($0)")) }))
        })
        let sampled = writer.census(of: value, sampleSize: BinaryPlistWriter.sampleSize)
        #expect(!sampled.isExact)
        #expect(byteWidth(toExceed: sampled.values + sampled.values / 4 + 64) == 2)
        #expect(throws: ProvisionalWidthsOutgrown.self) {
            try BinaryPlistWriter.write(value, sampled, exact: false, limits: .default)
        }
        let bytes = try writer.encode(value)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        #expect(try BinaryPlistDocument(bytes).trailer.referenceWidth == 3)
    }

    @Test func copiesAFileFarSmallerThanTheEstimate() throws {
        // The sampled members are data of 16 bytes, the others `true` (one object): the estimate, 8 times the
        // sample's bytes, is more than twice the file (the array's capacity, 16 bytes a value, is between).
        let value = skewed(2_048, sampled: { .data([UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)]
                                                      + Array(repeating: 7, count: 14)) },
                           other: { _ in .bool(true) })
        let sampled = writer.census(of: value, sampleSize: BinaryPlistWriter.sampleSize)
        #expect(sampled.estimatedSize > 36_000)
        let bytes = try writer.encode(value)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        #expect(bytes.capacity <= 2 * bytes.count + 64, "capacity \(bytes.capacity), \(bytes.count) bytes")
    }

    @Test func growsPastAnEstimateFarTooSmall() throws {
        // The sampled members are empty strings, the others data of 1 KiB: the file outgrows the array.
        let value = skewed(2_048, sampled: { _ in .string("") },
                           other: { i in .data([UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i)]
                                                   + Array(repeating: 9, count: 1022)) })
        let bytes = try writer.encode(value)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        // 1,792 distinct data of 1,027 bytes each.
        #expect(bytes.count > 1_792 * 1_027)
        #expect(bytes.capacity <= 2 * bytes.count + 64, "capacity \(bytes.capacity), \(bytes.count) bytes")
    }

    @Test func keepsAWildOverestimateBelowTheCeiling() throws {
        // With a sample of 16, the 16 sampled members of 8,192 are one dictionary of 2,100 entries (one
        // storage), the others `true`: the sample scales to 34 million values, 450 times the tree's. The writer
        // reserves no more than the ceiling, and the file is copied out of the array it was written in.
        let heavy = PlistDictionary((0..<2_100).map { (PlistValue.string("k\($0)"), PlistValue.integer(PlistInteger($0))) })
        let value = skewed(8_192, sample: 16, sampled: { _ in .dictionary(heavy) }, other: { _ in .bool(true) })
        let sampled = writer.census(of: value, sampleSize: 16)
        #expect(sampled.values > 34_000_000)
        #expect(sampled.values > BinaryPlistWriter.provisionalCeiling.values)
        let bytes = try writer.encode(value, sampleSize: 16)
        #expect(bytes == (try writer.encode(value, sampleSize: nil)))
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        #expect(bytes.capacity <= 2 * bytes.count + 64, "capacity \(bytes.capacity), \(bytes.count) bytes")
    }

    @Test func nestedSamplesSaturateInsteadOfOverflowing() throws {
        // 40 arrays, each the first of 5 members of the next: a sample of 1 scales each level by 5, 5^40 in all.
        var value = PlistValue.bool(true)
        for _ in 0..<40 { value = .array([value] + Array(repeating: .bool(false), count: 4)) }
        let census = writer.census(of: value, sampleSize: 1)
        #expect(!census.isExact)
        #expect(census.values == Int.max / 16)
        #expect(census.estimatedSize == Int.max / 4)
        let bytes = try writer.encode(value, sampleSize: 1)
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
        #expect(bytes.capacity <= 2 * bytes.count + 64, "capacity \(bytes.capacity), \(bytes.count) bytes")
    }

    @Test func reportsTheFirstRefusalInWritingOrderWhateverWasSampled() throws {
        var deep = PlistValue.array([])
        for _ in 0..<600 { deep = [deep] }
        let badKey = PlistValue.dictionary(PlistDictionary([(.array([]), .bool(true))]))
        // Member 0 is sampled, member 1 is not (a stride of 8 in 2,048 members), member 1,600 is.
        func members(_ one: PlistValue, at i: Int, _ other: PlistValue, at j: Int) -> PlistValue {
            .array((0..<2_048).map { $0 == i ? one : $0 == j ? other : .integer(PlistInteger($0)) })
        }
        for (value, code) in [(members(badKey, at: 1, deep, at: 1_600), PlistError.Code.invalidKey),
                              (members(deep, at: 1, badKey, at: 1_600), .depthLimitExceeded),
                              (members(badKey, at: 0, deep, at: 1), .invalidKey),
                              (members(deep, at: 3, .null, at: 4), .depthLimitExceeded)] {
            #expect(!writer.census(of: value, sampleSize: BinaryPlistWriter.sampleSize).isExact)
            let ours = #expect(throws: PlistError.self) { try writer.encode(value) }
            let reference = #expect(throws: PlistError.self) { try ReferenceBinaryPlistWriter.encode(value) }
            #expect(ours?.code == code)
            #expect(ours?.code == reference?.code)
            #expect(ours?.reason == reference?.reason)
        }
    }

    @Test func writesNestedSampledCollectionsAsTheExactCensusDoes() throws {
        // With a sample of 16 (collections of more than 64 members sampled): large collections inside large
        // ones, sets among them, and a dictionary of 80 entries.
        let inner = (0..<100).map { PlistValue.integer(PlistInteger($0 * 3)) }
        var big = PlistDictionary()
        for i in 0..<80 { big["key \(i)"] = i % 2 == 0 ? .array(inner) : .string("value \(i % 7)") }
        let value = PlistValue.array([.dictionary(big), .set(inner), .array(Array(repeating: .array(inner), count: 70))])
        #expect(!writer.census(of: value, sampleSize: 16).isExact)
        let bytes = try writer.encode(value, sampleSize: 16)
        #expect(bytes == (try writer.encode(value, sampleSize: nil)))
        #expect(bytes == (try ReferenceBinaryPlistWriter.encode(value)))
    }

    @Test(arguments: PresizedWriterTests.fixturePlists)
    func writesEveryFixtureAlikeWhateverTheCensusSamples(_ file: String) throws {
        guard let value = try PresizedWriterTests.fixtureValue(file) else { return }
        // A sample of 1 or 2 samples every collection of more than 4 or 8 members: estimates off either way.
        let exact = try writer.encode(value, sampleSize: nil)
        for sampleSize in [1, 2, 16] {
            #expect(try writer.encode(value, sampleSize: sampleSize) == exact, "\(file), sample of \(sampleSize)")
        }
        #expect(exact == (try writer.encode(value)))
    }
}
