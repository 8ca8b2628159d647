/// An open file descriptor: the number `open(2)` returned, as a type of its own, so that a descriptor is
/// never mistaken for a count, an `errno` or an exit status.
///
/// The calls on an open file are its methods (`fd.read(into:)`, `fd.sync()`, `fd.close()`), in
/// FileDescriptor+Calls.swift; ``open(_:_:permissions:)`` makes one.
///
/// ```swift
/// let fd = try FileDescriptor.open(path, [.readOnly])
/// defer { fd.close() }
/// let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
/// ```
///
/// Mirrors swift-system's `FileDescriptor` (a `CInt` raw value, no ownership: closing is explicit).
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The descriptor's number.
    package let rawValue: CInt

    /// The descriptor `rawValue` (one the caller opened, or a standard stream's).
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// Standard output, descriptor 1.
    package static let standardOutput = FileDescriptor(rawValue: 1)
    /// Standard error, descriptor 2.
    package static let standardError = FileDescriptor(rawValue: 2)
}
