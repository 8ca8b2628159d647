/// `NSNumber`: integers, reals and booleans, written bare (as Apple writes them), uniqued by value.
extension KeyedUnarchiver {
    /// An `NSNumber` stored as a dictionary, which Apple never writes.
    func decodeNSNumber(uid: Int) throws -> Any {
        func invalid(_ reason: String) -> KeyedArchiveError { error(.invalidValue, reason, uid: uid) }
        throw invalid("NSNumber stored as a dictionary is not supported")
    }
}

extension KeyedArchiver {
    /// A bare boolean, one object per archive for each of `true` and `false`.
    func boolObject(_ b: Bool) -> Int32 {
        let slot = b ? 1 : 0
        if boolObjects[slot] < 0 { boolObjects[slot] = bareObject(state.pointee.builder.bool(b)) }
        return boolObjects[slot]
    }

    func integerObject(_ i: Int64) -> Int32 {
        if let uid = integerObjects[i] { return uid }
        let uid = bareObject(state.pointee.builder.integer(i))
        integerObjects[i] = uid
        return uid
    }

    func realObject(_ d: Double) -> Int32 {
        if let uid = realObjects[d.bitPattern] { return uid }
        let uid = bareObject(state.pointee.builder.real(d))
        realObjects[d.bitPattern] = uid
        return uid
    }
}
