/// Running a ``RecordQuery``: from the property indexes where the record type declares them (decoding only the
/// records returned), by decoding the records otherwise.
extension ArchiveRepository {
    // MARK: Fetching

    /// The records that match `query`, in its order and window; without an order, in the order of their last
    /// write (an update moves a record to the end). `records()` is every record.
    ///
    /// ```swift
    /// let everything = try exercises.records()
    /// let latest = try exercises.records(matching: RecordQuery().sorted(by: \.recordDate, ascending: false).limit(20))
    /// let first = try exercises.records(matching: RecordQuery().where(\.recordCount, greaterThan: 100).limit(1)).first
    /// ```
    ///
    /// Mirrors `NSManagedObjectContext.fetch(_:)` and GRDB's `fetchAll(_:)`.
    public func records(matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> [Record] {
        if query.isEverything { return try allRecords() }
        switch try plan(query, window: true) {
        case .records(let records):
            return records
        case .rows(let rows, let handle, let version):
            var records: [Record] = []
            records.reserveCapacity(rows.count)
            let (generation, serial) = (handle.generation, handle.serial)
            // The records decoded lately, taken in one go; the others read and decoded.
            let kept = decodedRecords.withLock { cache in
                rows.map { cache.record(at: $0.offset, generation: generation, handle: serial) }
            }
            for i in 0..<rows.count {
                let row = rows[i]
                if let kept = kept[i] {
                    records.append(kept)
                    continue
                }
                let frame = try handle.frame(LiveEntry(hash: 0, offset: row.offset, length: row.length, expiryBits: 0))
                records.append(try decodeKept(frame, version: version, generation: generation, handle: serial))
            }
            return records
        }
    }

    /// The ids (as the store files them: `String(describing: id)`) of the records that match `query`, in its
    /// order and window; answered from the indexes without decoding a record when every condition and the
    /// order use one.
    public func ids(matching query: RecordQuery<Record>) throws(StoreError) -> [String] {
        switch try plan(query, window: true) {
        case .records(let records):
            return records.map { String(decoding: Self.key($0.id), as: UTF8.self) }
        case .rows(let rows, let handle, _):
            var ids: [String] = []
            ids.reserveCapacity(rows.count)
            for row in rows {
                let frame = try handle.frame(LiveEntry(hash: 0, offset: row.offset, length: row.length, expiryBits: 0))
                ids.append(String(decoding: frame.key, as: UTF8.self))
            }
            return ids
        }
    }

    /// The number of records that match `query` (its window applied), without decoding a record when every
    /// condition uses an index; without a condition (`count()`), the count kept with the open store, so a
    /// count costs one read of the commit slots.
    ///
    /// ```swift
    /// let all = try exercises.count()
    /// let busyDays = try exercises.count(matching: RecordQuery().where(\.recordCount, in: 100...))
    /// ```
    ///
    /// Mirrors `NSManagedObjectContext.count(for:)` and Realm's `Results.count`.
    public func count(matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> Int {
        if query.conditions.isEmpty {
            let live = try liveCount()
            let afterOffset = Swift.max(0, live - query.offsetCount)
            return query.limitCount.map { Swift.min($0, afterOffset) } ?? afterOffset
        }
        switch try plan(query, window: true, needsOrder: false) {
        case .records(let records): return records.count
        case .rows(let rows, _, _): return rows.count
        }
    }

    // MARK: Aggregates

    /// The largest value of the property at `keyPath` among the records that match `query` (`nil` when none
    /// has one; an optional property's `nil` is never the largest). With an index on the property and no
    /// condition, one row of the index is read.
    ///
    /// ```swift
    /// let largest = try exercises.max(of: \.recordCount)
    /// ```
    ///
    /// Mirrors Realm's `max(ofProperty:)` and `NSExpression(forFunction: "max:", ...)`.
    public func max<Value: IndexableValue>(of keyPath: KeyPath<Record, Value> & Sendable,
                                           matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> Value.Unwrapped?
    where Value.Unwrapped: Comparable {
        try extreme(RecordQuery.property(keyPath), query, largest: true).flatMap(Value.Unwrapped.init(indexValue:))
    }

    /// The smallest value of the property at `keyPath` among the records that match `query` (`nil` when none
    /// has one; an optional property's `nil` is never the smallest).
    ///
    /// Mirrors Realm's `min(ofProperty:)`.
    public func min<Value: IndexableValue>(of keyPath: KeyPath<Record, Value> & Sendable,
                                           matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> Value.Unwrapped?
    where Value.Unwrapped: Comparable {
        try extreme(RecordQuery.property(keyPath), query, largest: false).flatMap(Value.Unwrapped.init(indexValue:))
    }

    /// The sum of the property at `keyPath` over the records that match `query` (zero for none; an optional
    /// property's `nil` adds nothing), read from its index when it has one.
    ///
    /// ```swift
    /// let total = try exercises.sum(of: \.recordCount)
    /// ```
    ///
    /// - Throws: ``StoreError/Code/overflow`` when the sum of an integer property leaves its type's range
    ///   (stored values never trap); sum a `Double` property, or one of a wider type, where that can be.
    ///
    /// Mirrors Realm's `sum(ofProperty:)`.
    public func sum<Value: IndexableValue>(of keyPath: KeyPath<Record, Value> & Sendable,
                                           matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> Value.Unwrapped
    where Value.Unwrapped: AdditiveArithmetic {
        let values = try values(of: RecordQuery.property(keyPath), query)
        if let integer = Value.Unwrapped.self as? any (FixedWidthInteger & IndexableValue).Type,
           let total = try Self.checkedSum(values, as: integer) as? Value.Unwrapped {
            return total
        }
        var total = Value.Unwrapped.zero
        for value in values {
            if let number = Value.Unwrapped(indexValue: value) { total += number }
        }
        return total
    }

    /// The sum of `values` as `Integer`s, or ``StoreError/Code/overflow`` when it leaves their range.
    private static func checkedSum<Integer: FixedWidthInteger & IndexableValue>(_ values: [IndexValue],
                                                                               as _: Integer.Type) throws(StoreError) -> Integer {
        var total = Integer.zero
        for value in values {
            guard let number = Integer(indexValue: value) else { continue }
            let (sum, overflow) = total.addingReportingOverflow(number)
            guard !overflow else {
                throw StoreError(.overflow, "the sum of the property leaves \(Integer.self)'s range (\(Integer.min)...\(Integer.max))")
            }
            total = sum
        }
        return total
    }

    /// The mean of the number property at `keyPath` (an integer or floating-point type) over the records
    /// that match `query` and have a value; `nil` for none.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` for a property whose type is neither an integer nor a
    ///   floating-point type (such as an app's own `AdditiveArithmetic` type).
    ///
    /// Mirrors Realm's `average(ofProperty:)`.
    public func average<Value: IndexableValue>(of keyPath: KeyPath<Record, Value> & Sendable,
                                               matching query: RecordQuery<Record> = RecordQuery()) throws(StoreError) -> Double?
    where Value.Unwrapped: AdditiveArithmetic {
        let values = try values(of: RecordQuery.property(keyPath), query)
        guard !values.isEmpty else { return nil }
        var total = 0.0
        for value in values {
            guard let number = Value.Unwrapped(indexValue: value) else { continue }
            if let integer = number as? any BinaryInteger {
                total += Double(integer)
            } else if let floating = number as? any BinaryFloatingPoint {
                total += Double(floating)
            } else {
                throw StoreError(.invalidArgument, "\(Value.Unwrapped.self) is neither an integer nor a floating-point type: no mean", path: path)
            }
        }
        return total / Double(values.count)
    }

    /// The smallest or largest value of `property` that is not `nil` among the records matching `query`.
    private func extreme(_ property: RecordQuery<Record>.Property, _ query: RecordQuery<Record>, largest: Bool) throws(StoreError) -> IndexValue? {
        if query.conditions.isEmpty, case .some(let found) = try withIndex(of: property, { rows throws(StoreError) -> IndexValue? in
            if largest { return rows.last.flatMap { $0.value.present == 1 ? $0.value : nil } }
            return rows.row(at: rows.position(of: IndexValue.lowest, after: false))?.value
        }) {
            return found
        }
        let values = try values(of: property, query)
        return largest ? values.max(by: <) : values.min(by: <)
    }

    /// Runs `body` with the rows of the index on `property` when the store is a log and the record type declares
    /// one; `.none` otherwise.
    private func withIndex<Result>(of property: RecordQuery<Record>.Property,
                                   _ body: (SortedRows) throws(StoreError) -> Result) throws(StoreError) -> Result? {
        guard let number = Record.indexes.firstIndex(where: property.matches) else { return .none }
        return try withStoreState { state, store throws(StoreError) -> Result? in
            guard case .log(let handle) = store else { return .none }
            try checkVersion(handle.state.recordVersion)
            let indexes = try currentIndexes(&state, handle, progress: nil)
            return .some(try body(indexes.rows[number]))
        }
    }

    /// The values of `property` that are not `nil` among the records that match `query` (its window ignored):
    /// from the index when it has one and every condition uses one, else from decoded records.
    private func values(of property: RecordQuery<Record>.Property, _ query: RecordQuery<Record>) throws(StoreError) -> [IndexValue] {
        var unwindowed = query
        unwindowed.limitCount = nil
        unwindowed.offsetCount = 0
        unwindowed.order = nil
        if let number = Record.indexes.firstIndex(where: property.matches) {
            let found = try withStoreState { state, store throws(StoreError) -> [IndexValue]? in
                guard case .log(let handle) = store else { return nil }
                try checkVersion(handle.state.recordVersion)
                let indexes = try currentIndexes(&state, handle, progress: nil)
                if query.conditions.isEmpty {
                    var values: [IndexValue] = []
                    values.reserveCapacity(indexes.count)
                    let rows = indexes.rows[number]
                    rows.forEach(from: rows.position(of: IndexValue.lowest, after: false), to: rows.end) { row in
                        values.append(row.value)
                        return true
                    }
                    return values
                }
                guard let rows = try indexedRows(unwindowed, indexes, needsOrder: false) else { return nil }
                return rows.compactMap { row in indexes.value(number, at: row.offset).flatMap { $0.present == 1 ? $0 : nil } }
            }
            if let found { return found }
        }
        return try records(matching: unwindowed).compactMap { record in
            let value = property.value(record)
            return value.present == 1 ? value : nil
        }
    }

    // MARK: Planning

    /// What the locked part of planning found.
    enum PlanFound {
        case plan(QueryPlan)
        case decode(StoreHandle, [LiveEntry], Int)
        case all
    }

    /// What a query comes to: the rows of the records to read (in order), or records already decoded.
    enum QueryPlan {
        case rows([IndexRow], StoreHandle, Int)
        case records([Record])
    }

    /// Runs `query`: from the indexes when they answer it whole, else by decoding the records the indexed
    /// conditions leave and testing, sorting and windowing them here.
    func plan(_ query: RecordQuery<Record>, window: Bool, needsOrder: Bool = true) throws(StoreError) -> QueryPlan {
        let found = try withStoreState { state, store throws(StoreError) -> PlanFound in
            switch store {
            case .absent: return .plan(.records([]))
            case .singleArchive: return .all
            case .log(let handle):
                try checkVersion(handle.state.recordVersion)
                let version = handle.state.recordVersion
                if Record.indexes.isEmpty { return .decode(handle, handle.table.liveEntries, version) }
                let indexes = try currentIndexes(&state, handle, progress: nil)
                var indexedQuery = query
                if !window {
                    indexedQuery.limitCount = nil
                    indexedQuery.offsetCount = 0
                }
                if !needsOrder { indexedQuery.order = nil }
                if let rows = try indexedRows(indexedQuery, indexes, needsOrder: needsOrder) {
                    return .plan(.rows(rows, handle, version))
                }
                // Some condition or the order needs decoding: the indexed conditions narrow the records first.
                var narrowing = query
                narrowing.conditions.removeAll { condition in !Record.indexes.contains(where: condition.property.matches) }
                narrowing.order = nil
                narrowing.limitCount = nil
                narrowing.offsetCount = 0
                if narrowing.conditions.isEmpty { return .decode(handle, handle.table.liveEntries, version) }
                guard let rows = try indexedRows(narrowing, indexes, needsOrder: false) else {
                    return .decode(handle, handle.table.liveEntries, version)
                }
                return .decode(handle, rows.map { LiveEntry(hash: 0, offset: $0.offset, length: $0.length, expiryBits: 0) }, version)
            }
        }
        var records: [Record] = []
        var offsets: [Int] = []
        switch found {
        case .plan(let plan):
            return plan
        case .all:
            records = try allRecords()
            offsets = Array(records.indices)
        case .decode(let handle, let entries, let version):
            // Without an order, the walk ends once the window is full (a first match decodes no further).
            let enough = window && (query.order == nil || !needsOrder) ? query.limitCount.map { query.offsetCount + $0 } : nil
            var i = 0
            try forEachRecord(of: handle, entries, version: version) { record throws(StoreError) -> Bool in
                if query.conditions.allSatisfy({ condition in condition.admits(condition.property.value(record)) }) {
                    records.append(record)
                    offsets.append(entries[i].offset)
                }
                i += 1
                return enough.map { records.count < $0 } ?? true
            }
        }
        // Every condition is tested again on the decoded record (the indexed ones held already).
        if needsOrder, let order = query.order {
            let extract = order.property.value
            let keyed = zip(records, offsets).map { (value: extract($0.0), offset: $0.1, record: $0.0) }
            let sorted = keyed.sorted { a, b in
                if a.value != b.value { return order.ascending ? a.value < b.value : b.value < a.value }
                return order.ascending ? a.offset < b.offset : b.offset < a.offset
            }
            records = sorted.map(\.record)
        }
        if window {
            let start = Swift.min(query.offsetCount, records.count)
            let end = query.limitCount.map { Swift.min(records.count, start + $0) } ?? records.count
            records = Array(records[start..<end])
        }
        return .records(records)
    }

    /// The rows of the records matching `query`, in its order and window, when the indexes answer it whole
    /// (every condition, and the order if `needsOrder`, on an index); `nil` otherwise.
    func indexedRows(_ query: RecordQuery<Record>, _ indexes: PropertyIndexes, needsOrder: Bool) throws(StoreError) -> [IndexRow]? {
        let declared = Record.indexes
        var conditions: [IndexCondition] = []
        conditions.reserveCapacity(query.conditions.count)
        for condition in query.conditions {
            guard let index = declared.firstIndex(where: condition.property.matches) else { return nil }
            conditions.append(IndexCondition(index: index, bounds: condition.bounds))
        }
        var order: (index: Int, ascending: Bool)?
        if needsOrder, let wanted = query.order {
            guard let index = declared.firstIndex(where: wanted.property.matches) else { return nil }
            order = (index, wanted.ascending)
        }
        return IndexPlanner(indexes: indexes, conditions: conditions)
            .rows(orderIndex: order?.index, ascending: order?.ascending ?? true, skip: query.offsetCount, limit: query.limitCount ?? Int.max)
    }
}

/// A condition on an index: its number among the record type's indexes and its bounds.
struct IndexCondition {
    var index: Int
    var bounds: IndexBounds

    func admits(_ value: IndexValue) -> Bool { bounds.admits(value) }
}

/// Answers conditions and an order from the property indexes alone (not generic: no type metadata is looked up
/// per row). The narrowest condition drives (the fewest rows in its range), the others are tested on each of
/// its rows through the offset-to-value maps; an order is walked along its index (stopping once the window is
/// full) unless a narrow condition makes sorting its few rows cheaper.
struct IndexPlanner {
    let indexes: PropertyIndexes
    let conditions: [IndexCondition]

    /// The positions of `condition`'s range in its index.
    func range(_ condition: IndexCondition) -> (SortedRows.Position, SortedRows.Position) {
        let rows = indexes.rows[condition.index]
        let bounds = condition.bounds
        let low = bounds.lower.map { rows.position(of: $0, after: !bounds.lowerInclusive) } ?? rows.start
        let high = bounds.upper.map { rows.position(of: $0, after: bounds.upperInclusive) } ?? rows.end
        return (low, high)
    }

    /// Whether `row` passes every condition but the one numbered `driver`.
    func admitted(_ row: IndexRow, except driver: Int) -> Bool {
        var n = 0
        while n < conditions.count {
            if n != driver {
                let condition = conditions[n]
                guard let value = indexes.value(condition.index, at: row.offset), condition.admits(value) else { return false }
            }
            n += 1
        }
        return true
    }

    func rows(orderIndex: Int?, ascending: Bool, skip: Int, limit: Int) -> [IndexRow] {
        guard limit > 0 else { return [] }
        var driver = -1
        var driverSize = Int.max
        for n in 0..<conditions.count {
            let (low, high) = range(conditions[n])
            let rows = indexes.rows[conditions[n].index]
            let size = Swift.max(0, rows.rank(high) - rows.rank(low))
            if size < driverSize {
                driver = n
                driverSize = size
            }
        }
        if let orderIndex, driver < 0 || driverSize >= indexes.count / 8 || conditions[driver].index == orderIndex {
            // Walk the order's index: within a condition on it, or whole.
            let rows = indexes.rows[orderIndex]
            var low = rows.start, high = rows.end, walking = -1
            if let same = conditions.firstIndex(where: { $0.index == orderIndex }) {
                (low, high) = range(conditions[same])
                walking = same
            }
            return walk(rows, low, high, ascending: ascending, except: walking, skip: skip, limit: limit)
        }
        guard driver >= 0 else {
            // No condition and no order: every record, in log order.
            var all: [IndexRow] = []
            if let rows = indexes.rows.first {
                all.reserveCapacity(rows.count)
                rows.forEach(from: rows.start, to: rows.end) { all.append($0); return true }
            }
            all.sort { $0.offset < $1.offset }
            return Self.window(all, skip: skip, limit: limit)
        }
        let (low, high) = range(conditions[driver])
        var candidates: [IndexRow] = []
        indexes.rows[conditions[driver].index].forEach(from: low, to: high) { row in
            if admitted(row, except: driver) { candidates.append(row) }
            return true
        }
        if let orderIndex {
            var keyed: [(value: IndexValue, row: IndexRow)] = []
            keyed.reserveCapacity(candidates.count)
            for row in candidates { keyed.append((indexes.value(orderIndex, at: row.offset) ?? .null, row)) }
            keyed.sort { a, b in
                if a.value != b.value { return ascending ? a.value < b.value : b.value < a.value }
                return ascending ? a.row.offset < b.row.offset : b.row.offset < a.row.offset
            }
            candidates = keyed.map(\.row)
        } else {
            candidates.sort { $0.offset < $1.offset }
        }
        return Self.window(candidates, skip: skip, limit: limit)
    }

    /// The admitted rows between two positions in the direction asked, `skip` of them passed over, at most `limit`.
    private func walk(_ rows: SortedRows, _ low: SortedRows.Position, _ high: SortedRows.Position, ascending: Bool, except: Int,
                      skip: Int, limit: Int) -> [IndexRow] {
        var result: [IndexRow] = []
        if limit != Int.max { result.reserveCapacity(limit) }
        var skipped = 0
        let take = { (row: IndexRow) -> Bool in
            guard admitted(row, except: except) else { return true }
            if skipped < skip {
                skipped += 1
                return true
            }
            result.append(row)
            return result.count < limit
        }
        if ascending { rows.forEach(from: low, to: high, take) } else { rows.forEachReversed(from: low, to: high, take) }
        return result
    }

    static func window(_ rows: [IndexRow], skip: Int, limit: Int) -> [IndexRow] {
        let start = Swift.min(skip, rows.count)
        let end = limit == Int.max ? rows.count : Swift.min(rows.count, start + limit)
        return Array(rows[start..<end])
    }
}
