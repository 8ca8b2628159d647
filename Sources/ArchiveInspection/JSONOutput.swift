import BinaryPlist
import KeyedArchive

/// JSON text streamed in chunks: written through one ``JSONWriter`` and handed to a sink whenever 64 KiB
/// have gathered, so that output of any length needs a bounded buffer.
///
/// ```swift
/// var out = JSONOutput(pretty: false, sink: { chunk in write(chunk) })
/// out.w.raw("null")
/// try out.flush()
/// ```
struct JSONOutput {
    var w: JSONWriter
    private let sink: ([UInt8]) throws -> Void
    /// Most bytes the whole output may take; past it ``flushIfFull()`` and ``flush()`` throw.
    let maxBytes: Int
    /// Bytes handed to the sink so far.
    private(set) var written = 0

    static let chunkSize = 1 << 16

    /// `sink` receives each chunk; it may throw to stop the output (a closed pipe).
    init(pretty: Bool, maxBytes: Int = .max, sink: @escaping ([UInt8]) throws -> Void) {
        self.w = JSONWriter(pretty: pretty)
        self.maxBytes = maxBytes
        self.sink = sink
    }

    /// An output that counts and discards, for a dry run that finds every error before anything is printed.
    static func discarding(pretty: Bool, maxBytes: Int = .max) -> JSONOutput {
        JSONOutput(pretty: pretty, maxBytes: maxBytes, sink: { _ in })
    }

    /// Hands the buffer to the sink once it holds a chunk.
    @inline(__always)
    mutating func flushIfFull() throws {
        if w.out.count >= Self.chunkSize { try flush() }
    }

    /// Hands everything written so far to the sink.
    mutating func flush() throws {
        let (total, overflow) = written.addingReportingOverflow(w.out.count)
        guard !overflow, total <= maxBytes else {
            throw KeyedArchiveError(.elementLimitExceeded, "the JSON text would be longer than \(maxBytes) bytes")
        }
        written = total
        try w.drain(sink)
    }
}
