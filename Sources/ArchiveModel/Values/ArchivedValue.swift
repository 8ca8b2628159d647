/// The decoded form of the `NSValue` kinds that carry geometry or a range, with Apple's keys:
/// `NS.special` 1 point (`NS.pointval` "{x, y}"), 2 size (`NS.sizeval` "{w, h}"), 3 rect (`NS.rectval`
/// "{{x, y}, {w, h}}"), 4 range (`NS.rangeval.location`, `NS.rangeval.length`), 12 edge insets
/// (`NS.edgeval.top`/`left`/`bottom`/`right`).
///
/// Other `NSValue`s (those holding an Objective-C type encoding) decode as ``ArchivedObject``.
///
/// Mirrors `NSValue(range:)`, `NSValue(point:)`, `NSValue(size:)`, `NSValue(rect:)`, `NSValue(edgeInsets:)`.
public enum ArchivedValue: Hashable, Sendable {
    /// A point (`NS.special` 1). Mirrors `NSValue(point:)`.
    case point(x: Double, y: Double)
    /// A size (`NS.special` 2). Mirrors `NSValue(size:)`.
    case size(width: Double, height: Double)
    /// A rectangle (`NS.special` 3). Mirrors `NSValue(rect:)`.
    case rect(x: Double, y: Double, width: Double, height: Double)
    /// A range (`NS.special` 4). Mirrors `NSValue(range:)`.
    case range(location: Int, length: Int)
    /// Edge insets (`NS.special` 12). Mirrors `NSValue(edgeInsets:)`.
    case edgeInsets(top: Double, left: Double, bottom: Double, right: Double)
}

extension ArchivedValue {
    /// Apple's `NS.special` number for the kind.
    package var special: Int {
        switch self {
        case .point: 1
        case .size: 2
        case .rect: 3
        case .range: 4
        case .edgeInsets: 12
        }
    }

    /// Formats a number as Foundation's `NSStringFromPoint` does: integral values without a fraction.
    package static func format(_ v: Double) -> String {
        if v.isFinite, v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    /// The numbers in a geometry string such as `{{400, 300}, {200, 300}}`.
    package static func numbers(in text: String) -> [Double] {
        var result: [Double] = []
        var current = ""
        for ch in text {
            if ch.isNumber || ch == "." || ch == "-" || ch == "+" || ch == "e" || ch == "E" {
                current.append(ch)
            } else if !current.isEmpty {
                if let v = Double(current) { result.append(v) }
                current = ""
            }
        }
        if !current.isEmpty, let v = Double(current) { result.append(v) }
        return result
    }
}
