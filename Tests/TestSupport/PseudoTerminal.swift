import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal for tests of what a tool draws on a terminal: write to ``follower`` (a terminal, as
/// `isatty` says), read what arrived with ``drain()``.
///
/// Mirrors `posix_openpt(3)`, `grantpt(3)`, `unlockpt(3)`, `ptsname(3)`.
public final class PseudoTerminal {
    /// The controlling side, read by the test (non-blocking).
    public let leader: Int32
    /// The terminal side, handed to the code under test.
    public let follower: Int32

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init() throws {
        // The C library's pseudo-terminal calls, which Glibc's module map leaves out (they need _XOPEN_SOURCE).
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Call = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                throw Failure(description: "\(name) not found in the C library")
            }
            return unsafeBitCast(address, to: type)
        }
        let openpt = try symbol("posix_openpt", Open.self), grantpt = try symbol("grantpt", Call.self)
        let unlockpt = try symbol("unlockpt", Call.self), ptsname = try symbol("ptsname", Name.self)
        let leader = openpt(O_RDWR | O_NOCTTY)
        guard leader >= 0, grantpt(leader) == 0, unlockpt(leader) == 0, let name = ptsname(leader) else {
            throw Failure(description: "no pseudo-terminal: errno \(errno)")
        }
        let follower = open(name, O_RDWR | O_NOCTTY)
        guard follower >= 0 else {
            close(leader)
            throw Failure(description: "cannot open \(String(cString: name)): errno \(errno)")
        }
        _ = fcntl(leader, F_SETFL, fcntl(leader, F_GETFL) | O_NONBLOCK)
        self.leader = leader
        self.follower = follower
    }

    /// Everything written to the terminal side so far.
    public func drain() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(leader, $0.baseAddress, $0.count) }
            if n <= 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    deinit {
        close(follower)
        close(leader)
    }
}
