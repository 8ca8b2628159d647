import BinaryPlist
/// Writes JSON text into one growing byte buffer exactly as Python's `json.dumps(v, ensure_ascii=False)` does
/// (with `indent=1` when pretty): `", "` and `": "` separators, strings escaped as Python escapes them, reals
/// in their shortest round-trip form. The one JSON writer of the package: plist-JSON and archive-JSON both
/// write through it.
///
/// ```swift
/// var w = JSONWriter(pretty: false)
/// w.open(.object); w.item(first: true); w.key("a"); w.real(1.5); w.close(.object, empty: false)
/// String(decoding: w.out, as: UTF8.self)   // {"a": 1.5}
/// ```
///
/// No Apple API corresponds.
package struct JSONWriter {
    /// A JSON container's brackets.
    package enum Container {
        case array, object
        var open: UInt8 { self == .array ? UInt8(ascii: "[") : UInt8(ascii: "{") }
        var close: UInt8 { self == .array ? UInt8(ascii: "]") : UInt8(ascii: "}") }
    }

    package private(set) var out: [UInt8] = []
    package let pretty: Bool
    private var level = 0

    package init(pretty: Bool) { self.pretty = pretty }

    /// The text written so far.
    package var text: String { String(decoding: out, as: UTF8.self) }

    /// Hands the bytes written so far to `body` and empties the buffer (keeping its capacity and the
    /// nesting state), so that long output can be streamed in chunks.
    package mutating func drain(_ body: ([UInt8]) throws -> Void) rethrows {
        try body(out)
        out.removeAll(keepingCapacity: true)
    }

    /// Opens an array or object; each member then starts with ``item(first:)``.
    package mutating func open(_ container: Container) {
        out.append(container.open)
        level += 1
    }

    /// The separator before a member (and, when pretty, its line break and indentation).
    package mutating func item(first: Bool) {
        if !first { raw(pretty ? "," : ", ") }
        if pretty { newline() }
    }

    /// Closes what ``open(_:)`` opened; `empty` when no member was written.
    package mutating func close(_ container: Container, empty: Bool) {
        level -= 1
        if pretty && !empty { newline() }
        out.append(container.close)
    }

    /// An object member's key and the `": "` after it.
    package mutating func key(_ key: String) {
        string(key)
        raw(": ")
    }

    /// `{"key": ` + what `body` writes + `}`: the one-key wrapper objects of plist-JSON.
    package mutating func wrapped(_ key: String, _ body: (inout JSONWriter) -> Void) {
        open(.object)
        item(first: true)
        self.key(key)
        body(&self)
        close(.object, empty: false)
    }

    /// Text written as is: `null`, `true`, an integer's digits, a number's validated text.
    package mutating func raw(_ text: String) { out.append(contentsOf: text.utf8) }

    /// A real as a JSON number in its shortest round-trip form, or `"nan"`, `"inf"`, `"-inf"`.
    package mutating func real(_ r: Double) {
        if r.isNaN {
            string("nan")
        } else if r.isInfinite {
            string(r < 0 ? "-inf" : "inf")
        } else {
            raw(r.description)  // "1.0", "1e+20", "5e-324": all JSON numbers, as Python's repr
        }
    }

    /// A JSON string, escaped as Python's `json` does with `ensure_ascii=False`. Runs of bytes that need no
    /// escape are copied at once.
    package mutating func string(_ s: String) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var run = 0
            for i in bytes.indices {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                escape(byte)
                run = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The escape of a quote, a backslash or a control character.
    private mutating func escape(_ byte: UInt8) {
        let backslash = UInt8(ascii: "\\")
        switch byte {
        case 0x0A: out += [backslash, UInt8(ascii: "n")]
        case 0x0D: out += [backslash, UInt8(ascii: "r")]
        case 0x09: out += [backslash, UInt8(ascii: "t")]
        case 0x08: out += [backslash, UInt8(ascii: "b")]
        case 0x0C: out += [backslash, UInt8(ascii: "f")]
        case 0..<0x20:
            func hex(_ n: UInt8) -> UInt8 { n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10 }
            out += [backslash, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex(byte >> 4), hex(byte & 0xF)]
        default: out += [backslash, byte]
        }
    }

    private mutating func newline() {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: level))
    }
}
