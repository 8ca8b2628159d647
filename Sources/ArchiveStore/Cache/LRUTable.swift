/// A hash table whose entries also form a list from least to most recently used: lookup, insert, move to
/// the most recent end and removal of the least recent are all O(1).
///
/// Nodes live in one array linked by indices (no per-entry allocation); freed slots are reused.
///
/// Plays the part of the list inside `NSCache`.
struct LRUTable<Key: Hashable, Payload> {
    private struct Node {
        var key: Key
        var payload: Payload
        var older: Int32
        var newer: Int32
    }

    private var nodes: [Node?] = []
    private var free: [Int32] = []
    private var positions: [Key: Int32] = [:]
    private var oldest: Int32 = -1
    private var newest: Int32 = -1

    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    init(minimumCapacity: Int = 0) {
        positions.reserveCapacity(minimumCapacity)
        nodes.reserveCapacity(minimumCapacity)
    }

    subscript(key: Key) -> Payload? {
        guard let slot = positions[key], let node = nodes[Int(slot)] else { return nil }
        return node.payload
    }

    /// Sets `key`'s payload and makes it the most recent; returns the payload it replaced.
    @discardableResult
    mutating func set(_ key: Key, _ payload: Payload) -> Payload? {
        if let slot = positions[key] {
            let old = nodes[Int(slot)]?.payload
            nodes[Int(slot)]?.payload = payload
            moveToNewest(slot)
            return old
        }
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
            nodes[Int(slot)] = Node(key: key, payload: payload, older: newest, newer: -1)
        } else {
            slot = Int32(nodes.count)
            nodes.append(Node(key: key, payload: payload, older: newest, newer: -1))
        }
        if newest >= 0 { nodes[Int(newest)]?.newer = slot } else { oldest = slot }
        newest = slot
        positions[key] = slot
        return nil
    }

    /// Changes `key`'s payload in place, without changing its place in the order.
    mutating func update(_ key: Key, _ body: (inout Payload) -> Void) {
        guard let slot = positions[key], var node = nodes[Int(slot)] else { return }
        body(&node.payload)
        nodes[Int(slot)] = node
    }

    /// Makes `key` the most recent; `false` when absent.
    @discardableResult
    mutating func touch(_ key: Key) -> Bool {
        guard let slot = positions[key] else { return false }
        moveToNewest(slot)
        return true
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Payload? {
        guard let slot = positions.removeValue(forKey: key), let node = nodes[Int(slot)] else { return nil }
        unlink(slot, node)
        nodes[Int(slot)] = nil
        free.append(slot)
        return node.payload
    }

    /// The least recently used entry.
    var leastRecent: (key: Key, payload: Payload)? {
        guard oldest >= 0, let node = nodes[Int(oldest)] else { return nil }
        return (node.key, node.payload)
    }

    /// Entries from least to most recently used, up to `limit`, stopping when `body` returns `false`.
    func forEach(_ body: (Key, Payload) -> Bool) {
        var slot = oldest
        while slot >= 0, let node = nodes[Int(slot)] {
            if !body(node.key, node.payload) { return }
            slot = node.newer
        }
    }

    mutating func removeAll() {
        nodes.removeAll(keepingCapacity: true)
        free.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        oldest = -1
        newest = -1
    }

    private mutating func moveToNewest(_ slot: Int32) {
        guard slot != newest, let node = nodes[Int(slot)] else { return }
        unlink(slot, node)
        nodes[Int(slot)]?.older = newest
        nodes[Int(slot)]?.newer = -1
        if newest >= 0 { nodes[Int(newest)]?.newer = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int32, _ node: Node) {
        if node.older >= 0 { nodes[Int(node.older)]?.newer = node.newer } else { oldest = node.newer }
        if node.newer >= 0 { nodes[Int(node.newer)]?.older = node.older } else { newest = node.older }
    }
}
