#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sanitizer runtimes this test process (and so the binaries `swift test` built beside it) carries.
///
/// A test that starts a built binary under a resource limit (`ulimit -d`, `ulimit -f`) cannot run under the
/// thread sanitizer: its runtime maps terabytes of shadow memory and files of its own at start-up, so even
/// `--version` dies there with SIGSEGV or SIGBUS before any of our code runs. Such tests are disabled under
/// `swift test --sanitize=thread` with this as the reason, and run in every ordinary `swift test`.
public enum Sanitizers {
    /// Whether the ThreadSanitizer runtime is loaded (its `__tsan_init` is visible from the main program).
    public static let thread: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        return dlsym(program, "__tsan_init") != nil
    }()
}
