import Foundation

/// Timing helpers: alternate implementations within one run and report medians, so that a noisy shared
/// machine affects every implementation alike.
struct Measurement {
    let impl: String
    let op: String
    let workload: String
    let n: Int
    var samples: [Double] = []  // milliseconds
    var bytes: Int = 0

    var median: Double {
        let s = samples.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    var resultLine: String {
        "RESULT impl=\(impl) op=\(op) workload=\(workload) n=\(n) ms=\(String(format: "%.2f", median)) bytes=\(bytes)"
    }
}

/// Milliseconds taken by `body`.
@inline(never)
func timeMS(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Keeps the optimizer from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Peak resident set size of this process so far, in bytes (Linux: VmHWM).
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

func currentResidentBytes() -> Int { statusBytes("VmRSS:") }

/// Resident pages backed by files (the program's and libraries' code among them), in bytes (Linux: RssFile).
func residentFileBytes() -> Int { statusBytes("RssFile:") }

/// A size in kB from /proc/self/status, in bytes (0 where there is none).
private func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
    return 0
}

/// Left-aligns (or right-aligns) `text` in `width` columns.
func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return right ? fill + text : text + fill
}

/// Prints a table of measurements and the RESULT lines.
func report(_ measurements: [Measurement], baseline: (String) -> String?) {
    print(pad("impl", 20) + pad("op", 10) + pad("workload", 10) + pad("median ms", 12, right: true)
          + pad("bytes", 12, right: true) + pad("speed-up", 10, right: true))
    for m in measurements {
        var ratio = ""
        if let base = baseline(m.op), let b = measurements.first(where: { $0.impl == base && $0.op == m.op }), m.impl != base {
            ratio = String(format: "%.1fx", b.median / m.median)
        }
        print(pad(m.impl, 20) + pad(m.op, 10) + pad(m.workload, 10) + pad(String(format: "%.2f", m.median), 12, right: true)
              + pad(String(m.bytes), 12, right: true) + pad(ratio, 10, right: true))
    }
    for m in measurements { print(m.resultLine) }
}
