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
    /// the order of the inputs; the error of the first input that failed is thrown. Each lane writes its
    /// outputs in place and stops at its first error (no `Result` per input: a generic one costs a metadata
    /// lookup and two copies each); the outputs are moved into the array returned.
    static func inParallel<Input, Output>(_ inputs: [Input], path: String,
                                          _ work: @escaping @Sendable (Input) throws(StoreError) -> Output) throws(StoreError) -> [Output] {
        let count = inputs.count
        guard count > 0 else { return [] }
        let laneCount = 8
        let perLane = (count + laneCount - 1) / laneCount
        // Lane `l`'s inputs (a short batch leaves the last lanes none).
        let laneRange = { @Sendable (lane: Int) -> Range<Int> in
            Swift.min(count, lane * perLane)..<Swift.min(count, (lane + 1) * perLane)
        }
        let outputs = UnsafeMutablePointer<Output>.allocate(capacity: count)
        let done = UnsafeMutablePointer<Int>.allocate(capacity: laneCount)
        done.initialize(repeating: 0, count: laneCount)
        let failures = UnsafeMutablePointer<StoreError?>.allocate(capacity: laneCount)
        failures.initialize(repeating: nil, count: laneCount)
        defer {
            outputs.deallocate()
            done.deinitialize(count: laneCount)
            done.deallocate()
            failures.deinitialize(count: laneCount)
            failures.deallocate()
        }
        inputs.withUnsafeBufferPointer { inputs in
            let lanes = Lanes(inputs: inputs, outputs: outputs, done: done, failures: failures)
            DispatchQueue.concurrentPerform(iterations: laneCount) { lane in
                for i in laneRange(lane) {
                    do throws(StoreError) {
                        (lanes.outputs + i).initialize(to: try work(lanes.inputs[i]))
                        lanes.done[lane] += 1
                    } catch {
                        lanes.failures[lane] = error
                        return
                    }
                }
            }
        }
        // Each lane stops at its first failure and the lanes cover the inputs in order: the first failing lane
        // holds the first failure. A lane that neither finished nor failed cannot be (concurrentPerform returns
        // when every lane has returned); it is reported, not trusted.
        let failure = (0..<laneCount).lazy.compactMap { failures[$0] }.first
        let unfinished = (0..<laneCount).contains { failures[$0] == nil && done[$0] != laneRange($0).count }
        if failure != nil || unfinished {
            for lane in 0..<laneCount { (outputs + laneRange(lane).lowerBound).deinitialize(count: done[lane]) }
            throw failure ?? StoreError(.io, "a batch was not finished", path: path)
        }
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { base.moveInitialize(from: outputs, count: count) }
            initialized = buffer.baseAddress == nil ? 0 : count
        }
    }
}

/// The inputs and output slots of ``ArchiveRepository/inParallel(_:path:_:)``, handed to its lanes.
private struct Lanes<Input, Output>: @unchecked Sendable { // Sendable: each lane reads its own inputs and writes its own slots, and concurrentPerform returns only when every lane is done.
    let inputs: UnsafeBufferPointer<Input>
    /// Room for every output; lane `l` initializes `done[l]` of its slots from its first one.
    let outputs: UnsafeMutablePointer<Output>
    let done: UnsafeMutablePointer<Int>
    let failures: UnsafeMutablePointer<StoreError?>
}
