// Files for the fuzz targets built into the ArchiveStore module (cache, store): a scratch directory, writing
// a file, removing a tree. Compiled with each of those entry files by Fuzz/run.sh.
#if canImport(Glibc)
import Glibc
#endif

/// Under `FUZZ_TMPDIR`, else `/dev/shm` when there is one (memory: no disk writes, and `fsync` costs nothing, so
/// several times more executions a second), else `/tmp`.
let fuzzDirectory: String = {
    var base = "/tmp"
    if let chosen = getenv("FUZZ_TMPDIR") {
        base = String(cString: chosen)
    } else if access("/dev/shm", W_OK) == 0 {
        base = "/dev/shm"
    }
    var template = Array((base + "/archivestore-fuzz-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("FUZZ FINDING: mkdtemp failed") }
    return String(cString: made)
}()

func writeFile(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fatalError("FUZZ FINDING: cannot write \(path)") }
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func removeTree(_ path: String) {
    guard let directory = opendir(path) else {
        unlink(path)
        return
    }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(directory)
    for name in names { removeTree(path + "/" + name) }
    rmdir(path)
}

