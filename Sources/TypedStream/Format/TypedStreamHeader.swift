/// The start of every typedstream: the streamer version, the signature that gives the byte order, and the
/// system version of the writer.
///
/// `04 0b "streamtyped" 81 e8 03` is a little-endian stream of streamer version 4 written by system
/// version 1000 (every Mac OS X); `04 0b "typedstream"` starts a big-endian one (NeXT machines, PowerPC
/// Macs). Version 3 streams (NeXTSTEP before 0.9) are refused.
///
/// Mirrors `NSUnarchiver.systemVersion` and the header `NSArchiver` writes.
public struct TypedStreamHeader: Hashable, Sendable {
    /// The byte order of the stream's multi-byte integers and reals.
    public enum ByteOrder: Hashable, Sendable {
        /// Signature `streamtyped` (Intel and Apple silicon Macs, iOS).
        case littleEndian
        /// Signature `typedstream` (NeXT on 68k, PowerPC Macs).
        case bigEndian
    }

    /// The streamer version: 4 for every stream this reader accepts.
    public var streamerVersion: Int
    /// The stream's byte order.
    public var byteOrder: ByteOrder
    /// The writer's system version: 1000 for Mac OS X and later, 82...930 for NeXTSTEP/OPENSTEP releases.
    /// Mirrors `NSUnarchiver.systemVersion`.
    public var systemVersion: Int

    /// The header `NSArchiver` writes today: version 4, little-endian, system version 1000.
    public static let current = TypedStreamHeader(streamerVersion: 4, byteOrder: .littleEndian, systemVersion: 1000)

    /// A header of these parts.
    public init(streamerVersion: Int, byteOrder: ByteOrder, systemVersion: Int) {
        self.streamerVersion = streamerVersion
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
    }

    static let littleEndianSignature: [UInt8] = Array("streamtyped".utf8)
    static let bigEndianSignature: [UInt8] = Array("typedstream".utf8)

    /// Whether `bytes` start like a typedstream (streamer version 3 or 4 and either signature), without
    /// reading further: the check the inspector sniffs files with.
    public static func isTypedStream(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 13, bytes[0] == 3 || bytes[0] == 4, bytes[1] == 11 else { return false }
        let signature = bytes[2..<13]
        return signature.elementsEqual(littleEndianSignature) || signature.elementsEqual(bigEndianSignature)
    }
}
