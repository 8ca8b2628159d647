/// `NSString` and `NSMutableString` (`NS.string`), as Swift `String`.
extension KeyedUnarchiver {
    /// An `NSString` or `NSMutableString` object: its `NS.string`.
    func decodeNSString(uid: Int) throws -> Any {
        try requiredField("NS.string", as: String.self, of: "NSString", uid: uid)
    }
}

extension KeyedArchiver {
    /// A bare `NSString`, uniqued by value: the builder uniques the string's plist node (one hash of the
    /// string), and the node's object UID is kept in an array indexed by node.
    func stringObject(_ s: String) -> Int32 {
        let node = Int(state.pointee.builder.string(s))
        if node < state.pointee.stringUIDs.count {
            if state.pointee.stringUIDs[node] >= 0 { return state.pointee.stringUIDs[node] }
        } else {
            state.pointee.stringUIDs.append(contentsOf: repeatElement(-1, count: node - state.pointee.stringUIDs.count + 1))
        }
        let uid = bareObject(Int32(truncatingIfNeeded: node))
        state.pointee.stringUIDs[node] = uid
        return uid
    }
}
