import Foundation

/// Launches the package's executables directly with `posix_spawn` (no shell unless asked, no `swift run`), capturing output.
public enum Spawn {
    private static let spawnLock = NSLock()

    public struct Child {
        public let pid: pid_t
        let stdout: Int32
        let stderr: Int32

        /// Reads both pipes to the end, reaps the child and returns its status (128 + signal if killed).
        public func finish() -> (status: Int32, stdout: String, stderr: String) {
            let out = Spawn.readAll(stdout)
            let err = Spawn.readAll(stderr)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            return (status, out, err)
        }
    }

    /// A built executable of this package (`formcache`, `keyedarchive`), next to the test bundle in the
    /// build directory.
    public static func executable(_ name: String) throws -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.path.hasSuffix(".xctest/Contents/MacOS") {
            directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        let candidates = [
            directory.appendingPathComponent(name).path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/" + name).path,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SpawnError(message: "the \(name) executable is not built; looked at \(candidates)")
        }
        return found
    }

    /// The built `formcache` executable.
    public static var formcache: String { get throws { try executable("formcache") } }

    /// The built `keyedarchive` executable.
    public static var keyedarchive: String { get throws { try executable("keyedarchive") } }

    public struct SpawnError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Starts `path` with `arguments` and exactly `environment` (plus `rawEnvironment`, `NAME=value` entries
    /// as bytes, for values that are not UTF-8), stdin from `stdinFile` (default /dev/null); stdout to
    /// `stdoutFile` when given (`/dev/full`, say: the child's `stdout` then reads as empty).
    public static func start(_ path: String, _ arguments: [String], environment: [String: String],
                      rawEnvironment: [[UInt8]] = [], stdinFile: String = "/dev/null", stdoutFile: String? = nil) throws -> Child {
        // Pipes are made close-on-exec under a lock, so that children spawned at the same time from other
        // threads never inherit another child's pipe (which would delay its end-of-file).
        spawnLock.lock()
        defer { spawnLock.unlock() }
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw SpawnError(message: "pipe failed") }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?   // an opaque pointer on Darwin, which init allocates
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinFile, O_RDONLY, 0)
        if let stdoutFile {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutFile, O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let raw: [UnsafeMutablePointer<CChar>?] = rawEnvironment.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { copy[i] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + raw + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard result == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw SpawnError(message: "posix_spawn \(path): \(String(cString: strerror(result)))")
        }
        return Child(pid: pid, stdout: outPipe[0], stderr: errPipe[0])
    }

    /// Runs `path` to completion.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try start(path, arguments, environment: environment).finish()
    }

    static func readAll(_ fd: Int32) -> String {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
