/// A property-list integer: any value from −2^127 to 2^127−1, stored as a 128-bit two's-complement pair.
///
/// Signed and unsigned 64-bit values stay apart: `UInt64.max` is `2^64 − 1`, never `−1`.
/// Binary plists write values from 2^63 up as 16-byte integers (marker `0x14`), as CoreFoundation does.
///
/// Mirrors `CFNumber` of type `kCFNumberSInt64Type` / `kCFNumberSInt128Type` in a binary plist.
public struct PlistInteger: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The high 64 bits, two's complement (0 or −1 for every value that fits 64 bits signed).
    public let high: Int64
    /// The low 64 bits.
    public let low: UInt64

    /// Creates an integer from its two 64-bit halves.
    public init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The integer `value`.
    public init(_ value: Int64) {
        self.init(high: value < 0 ? -1 : 0, low: UInt64(bitPattern: value))
    }

    /// The integer `value`.
    package init(_ value: Int) { self.init(Int64(value)) }

    /// The integer `value`, which may exceed `Int64.max`.
    public init(_ value: UInt64) { self.init(high: 0, low: value) }

    /// Whether the value is below zero.
    package var isNegative: Bool { high < 0 }

    /// The value as `Int64`, or `nil` when it does not fit.
    public var int64Value: Int64? {
        let asSigned = Int64(bitPattern: low)
        if high == 0 && asSigned >= 0 { return asSigned }
        if high == -1 && asSigned < 0 { return asSigned }
        return nil
    }

    /// The value as `UInt64`, or `nil` when it is negative or does not fit.
    public var uint64Value: UInt64? { high == 0 ? low : nil }

    /// The value as `Int`, or `nil` when it does not fit.
    package var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// Whether the value fits a signed 64-bit integer.
    package var fitsInt64: Bool { int64Value != nil }

    /// Whether `lhs` is less than `rhs`.
    public static func < (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    /// The value in decimal.
    public var description: String {
        if let v = int64Value { return String(v) }
        if let v = uint64Value { return String(v) }
        return Self.decimal128(high: high, low: low)
    }

    /// Decimal text of a 128-bit two's-complement value, without 128-bit arithmetic in the standard library.
    private static func decimal128(high: Int64, low: UInt64) -> String {
        let negative = high < 0
        var hi = UInt64(bitPattern: high)
        var lo = low
        if negative {  // two's-complement negate
            hi = ~hi
            lo = ~lo
            let (sum, overflow) = lo.addingReportingOverflow(1)
            lo = sum
            if overflow { hi &+= 1 }
        }
        var digits: [UInt8] = []
        while hi != 0 || lo != 0 {
            // Divide the 128-bit (hi, lo) by 10.
            let qHi = hi / 10
            let rHi = hi % 10
            let (qLo, rLo) = UInt64(10).dividingFullWidth((high: rHi, low: lo))
            hi = qHi
            lo = qLo
            digits.append(UInt8(truncatingIfNeeded: rLo) + 48)
        }
        if digits.isEmpty { digits.append(48) }
        if negative { digits.append(45) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }
}

extension PlistInteger {
    /// The integer whose decimal text is `text` (an optional `-`, then digits, as a JSON integer literal is
    /// written), or `nil` when it is outside −2^127 ... 2^127−1 or not such text.
    package init?(decimalText text: String) {
        let negative = text.hasPrefix("-")
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for (i, byte) in text.utf8.enumerated() {
            if i == 0 && negative { continue }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            digits += 1
            // (high, low) = (high, low) * 10 + digit, failing past 2^128.
            let lowProduct = low.multipliedFullWidth(by: 10)
            let highProduct = high.multipliedReportingOverflow(by: 10)
            let (newLow, carry) = lowProduct.low.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            let (h1, o1) = highProduct.partialValue.addingReportingOverflow(lowProduct.high)
            let (h2, o2) = h1.addingReportingOverflow(carry ? 1 : 0)
            guard !highProduct.overflow, !o1, !o2 else { return nil }
            high = h2
            low = newLow
        }
        guard digits > 0 else { return nil }
        let signBit: UInt64 = 1 << 63
        if negative {
            // Magnitude at most 2^127.
            guard high < signBit || (high == signBit && low == 0) else { return nil }
            let negLow = ~low &+ 1
            let negHigh = ~high &+ (low == 0 ? 1 : 0)
            self.init(high: Int64(bitPattern: negHigh), low: negLow)
        } else {
            guard high < signBit else { return nil }
            self.init(high: Int64(bitPattern: high), low: low)
        }
    }
}

extension PlistInteger: ExpressibleByIntegerLiteral {
    /// The integer a literal writes.
    public init(integerLiteral value: Int64) { self.init(value) }
}
