import Dispatch

/// The seconds a piece of work takes, on the monotonic clock, for the tests that bound how long a hostile
/// input may keep a reader busy. `DispatchTime` is there at the package's minimums; `ContinuousClock` and
/// `Duration` need macOS 13 / iOS 16, so the test targets would not build on a Mac at macOS 10.15 with them.
public enum Stopwatch {
    /// Runs `body`; returns its result and the seconds it took.
    public static func measure<R>(_ body: () throws -> R) rethrows -> (result: R, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        return (result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// The seconds `body` took.
    public static func seconds(_ body: () throws -> Void) rethrows -> Double {
        try measure(body).seconds
    }
}
