import Dispatch

/// Decoding and archiving many records at once: in batches spread over the processor's cores (the frames are
/// read, and the results handed on, in order, on the calling thread).
extension ArchiveRepository {
    /// Records per batch: enough to spread over the cores, few enough to hold in memory.
    static var batchSize: Int { 512 }

    /// Calls `body` with the record of each of `entries`, in order: frames read in order on this thread, each
    /// batch decoded across the cores, then handed to `body` one record at a time. `body` returns whether to go
    /// on: `false` ends the walk there (the rest of a batch decoded already is dropped).
    func forEachRecord(of handle: StoreHandle, _ entries: [LiveEntry], version: Int,
                       _ body: (Record) throws(StoreError) -> Bool) throws(StoreError) {
        guard entries.count >= 2 * Self.batchSize else {
            try handle.forEachFrame(entries) { frame throws(StoreError) -> Bool in try body(try decode(frame, version: version)) }
            return
        }
        var start = 0
        while start < entries.count {
            let end = Swift.min(start + Self.batchSize, entries.count)
            var frames: [LogFrame] = []
            frames.reserveCapacity(end - start)
            try handle.forEachFrame(Array(entries[start..<end])) { frame throws(StoreError) -> Bool in
                frames.append(frame)
                return true
            }
            for record in try decodeAll(frames, version: version) {
                guard try body(record) else { return }
            }
            start = end
        }
    }

    /// The records of `frames`, decoded across the cores; the first error (in frame order) is thrown.
    func decodeAll(_ frames: [LogFrame], version: Int) throws(StoreError) -> [Record] {
        let records = try Self.inParallel(frames, path: path) { [self] frame throws(StoreError) in
            try decode(frame, version: version, counted: false)
        }
        counters.decoded.add(records.count)
        return records
    }

    /// The keyed archives of `records`, made across the cores (a few at a time on this thread); the first
    /// error (in order) is thrown.
    func archiveAll(_ records: [Record]) throws(StoreError) -> [[UInt8]] {
        guard records.count >= 64 else {
            var archives: [[UInt8]] = []
            archives.reserveCapacity(records.count)
            for record in records { archives.append(try archived(record)) }
            return archives
        }
        return try Self.inParallel(records, path: path) { [self] record throws(StoreError) in try archived(record) }
    }

    /// `work` applied to each of `inputs` in eight lanes that Dispatch spreads over the cores, the outputs in
    /// the order of the inputs; the error of the first input that failed is thrown.
    static func inParallel<Input, Output>(_ inputs: [Input], path: String,
                                          _ work: @escaping @Sendable (Input) throws(StoreError) -> Output) throws(StoreError) -> [Output] {
        let outputs = UnsafeMutableBufferPointer<Result<Output, StoreError>?>.allocate(capacity: inputs.count)
        outputs.initialize(repeating: nil)
        defer {
            outputs.deinitialize()
            outputs.deallocate()
        }
        inputs.withUnsafeBufferPointer { inputs in
            let lanes = Lanes(inputs: inputs, outputs: outputs)
            let count = 8
            let perLane = (inputs.count + count - 1) / count
            DispatchQueue.concurrentPerform(iterations: count) { lane in
                // A short batch leaves the last lanes nothing (their start is past the end).
                let end = Swift.min(lanes.inputs.count, (lane + 1) * perLane)
                for i in Swift.min(end, lane * perLane)..<end {
                    do throws(StoreError) {
                        lanes.outputs[i] = .success(try work(lanes.inputs[i]))
                    } catch {
                        lanes.outputs[i] = .failure(error)
                    }
                }
            }
        }
        var results: [Output] = []
        results.reserveCapacity(inputs.count)
        for output in outputs {
            switch output {
            case .success(let value)?: results.append(value)
            case .failure(let error)?: throw error
            case nil: throw StoreError(.io, "a batch was not finished", path: path)
            }
        }
        return results
    }
}

/// The inputs and output slots of ``ArchiveRepository/inParallel(_:path:_:)``, handed to its lanes.
private struct Lanes<Input, Output>: @unchecked Sendable { // Sendable: each lane reads its own inputs and writes its own slots, and concurrentPerform returns only when every lane is done.
    let inputs: UnsafeBufferPointer<Input>
    let outputs: UnsafeMutableBufferPointer<Result<Output, StoreError>?>
}
