/// Progress of long work, drawn on one line of standard error: the count done (of the total, when known),
/// the rate, and the time left.
///
/// ```
/// lint 1200/5000 files (24%), 812/s, 5s left
/// ```
///
/// It draws only when standard error is a terminal and the user did not ask for quiet
/// (``forCommand(_:label:unit:total:quiet:)``); otherwise every call does nothing, so a verb calls it
/// unconditionally. The line is redrawn at most every ``interval`` seconds (the first update draws at once), cut to
/// the terminal's width, and erased by ``finish()``, so that what the verb prints afterwards starts on a clean
/// line. Engines report through ``update(done:total:)``, a `(done, total)` callback.
///
/// ```swift
/// let progress = ProgressReporter.forCommand(context, label: "lint", unit: "files", total: files.count,
///                                            quiet: context.arguments.flag("quiet"))
/// for file in files { check(file); progress.advance() }
/// progress.finish()
/// ```
///
/// Mirrors the progress line of `rsync --info=progress2` or `pv`; no Apple API corresponds.
package final class ProgressReporter {
    private let sink: OutputSink
    private let enabled: Bool
    private let label: String
    private let unit: String
    private var total: Int?
    private let clock: () -> Double
    private let columns: Int?
    /// Seconds between two drawings.
    package let interval: Double
    private let start: Double
    private var lastDraw: Double?
    private var drawn = false
    /// What is done so far.
    package private(set) var done = 0

    /// A reporter that writes to `sink` when `enabled`; `clock` gives seconds (monotonic), `columns` the width.
    package init(label: String, unit: String, total: Int?, sink: OutputSink, enabled: Bool,
                 clock: @escaping () -> Double = Terminal.monotonicSeconds, columns: Int? = nil, interval: Double = 0.1) {
        self.label = label
        self.unit = unit
        self.total = total
        self.sink = sink
        self.enabled = enabled
        self.clock = clock
        self.columns = columns
        self.interval = interval
        start = clock()
    }

    /// The reporter of a running verb: on its standard error when that is a terminal (and `TERM` is not `dumb`),
    /// silent with `quiet`.
    package static func forCommand(_ context: CommandContext, label: String, unit: String, total: Int?,
                                   quiet: Bool) -> ProgressReporter {
        let enabled = context.stderrIsTerminal && !quiet && context.environment["TERM"] != "dumb"
        return ProgressReporter(label: label, unit: unit, total: total, sink: context.stderr, enabled: enabled,
                                columns: enabled ? context.stderrColumns : nil)
    }

    /// One more item done (or `count`).
    package func advance(by count: Int = 1) {
        update(done: done + count, total: total)
    }

    /// The engines' callback: `done` items of `total` (nil: not known).
    package func update(done: Int, total: Int?) {
        self.done = done
        self.total = total
        guard enabled else { return }
        let now = clock()
        if let lastDraw, now - lastDraw < interval { return }
        lastDraw = now
        draw(now)
    }

    /// Erases the line, if one was drawn. Call it before printing anything else, and at the end.
    package func finish() {
        guard enabled, drawn else { return }
        sink.write("\r\u{1B}[K")
        drawn = false
    }

    /// The text of the line at `now`: `lint 12/50 files (24%), 8.0/s, 5s left`.
    package func line(at now: Double) -> String {
        var text = "\(label) \(done)"
        if let total { text += "/\(total)" }
        text += " \(unit)"
        if let total, total > 0 { text += " (\(min(100, done * 100 / total))%)" }
        let elapsed = now - start
        if elapsed > 0, done > 0 {
            let rate = Double(done) / elapsed
            text += ", " + Self.rate(rate) + "/s"
            if let total, total >= done {
                text += ", " + Self.duration(Double(total - done) / rate) + " left"
            }
        }
        return text
    }

    private func draw(_ now: Double) {
        var text = line(at: now)
        if let columns, columns > 1, text.count >= columns { text = String(text.prefix(columns - 1)) }
        sink.write("\r" + text + "\u{1B}[K")
        drawn = true
    }

    /// `812`, `81.2`, `8.12`: three significant digits at most.
    static func rate(_ r: Double) -> String {
        guard r.isFinite else { return "-" }
        if r >= 100 { return String(Int(r.rounded())) }
        let tenths = Int((r * 10).rounded())
        if r >= 10 { return "\(tenths / 10).\(tenths % 10)" }
        let hundredths = Int((r * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    /// `5s`, `2m05s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e9 else { return "-" }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60 < 10 ? "0" : "")\(s % 60)s" }
        return "\(s / 3600)h\((s % 3600) / 60 < 10 ? "0" : "")\((s % 3600) / 60)m"
    }
}
