import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's SQLite, loaded at run time (`dlopen`): the peer of `store-vs-sqlite`. Nothing links against it,
/// so the benchmarks build where it is missing and the workload says so and stops. On Debian it comes with
/// `libsqlite3-0` (installed with `libsqlite3-dev` by `Benchmarks/store/run.sh`); macOS has `/usr/lib/libsqlite3.dylib`.
final class SQLiteLibrary: @unchecked Sendable { // Sendable: immutable function pointers.
    typealias Open = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) -> Int32
    typealias Close = @convention(c) (OpaquePointer?) -> Int32
    typealias Exec = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    typealias Prepare = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
                                        UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32
    typealias BindText = @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, Int32, Int) -> Int32
    typealias BindDouble = @convention(c) (OpaquePointer?, Int32, Double) -> Int32
    typealias BindInt64 = @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    typealias Statement = @convention(c) (OpaquePointer?) -> Int32
    typealias ColumnText = @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    typealias ColumnBytes = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias ColumnDouble = @convention(c) (OpaquePointer?, Int32) -> Double
    typealias ColumnInt64 = @convention(c) (OpaquePointer?, Int32) -> Int64
    typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias LibraryVersion = @convention(c) () -> UnsafePointer<CChar>?

    let open: Open
    let close: Close
    let exec: Exec
    let prepare: Prepare
    let bindText: BindText
    let bindDouble: BindDouble
    let bindInt64: BindInt64
    let step: Statement
    let reset: Statement
    let finalize: Statement
    let columnText: ColumnText
    let columnBytes: ColumnBytes
    let columnDouble: ColumnDouble
    let columnInt64: ColumnInt64
    let errorMessage: ErrorMessage
    let version: String

    static let row: Int32 = 100
    static let done: Int32 = 101
    /// `SQLITE_TRANSIENT`: SQLite copies bound text.
    static let transient = -1

    /// The library, or `nil` (with the names tried) where none loads.
    static func load() -> (SQLiteLibrary?, [String]) {
        let names = ["libsqlite3.so.0", "libsqlite3.so", "/usr/lib/libsqlite3.dylib", "libsqlite3.dylib"]
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW) else { continue }
            if let library = SQLiteLibrary(handle) { return (library, names) }
        }
        return (nil, names)
    }

    private init?(_ handle: UnsafeMutableRawPointer) {
        func symbol<T>(_ name: String, _: T.Type) -> T? {
            guard let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: T.self)
        }
        guard let open = symbol("sqlite3_open_v2", Open.self), let close = symbol("sqlite3_close", Close.self),
              let exec = symbol("sqlite3_exec", Exec.self), let prepare = symbol("sqlite3_prepare_v2", Prepare.self),
              let bindText = symbol("sqlite3_bind_text", BindText.self), let bindDouble = symbol("sqlite3_bind_double", BindDouble.self),
              let bindInt64 = symbol("sqlite3_bind_int64", BindInt64.self), let step = symbol("sqlite3_step", Statement.self),
              let reset = symbol("sqlite3_reset", Statement.self), let finalize = symbol("sqlite3_finalize", Statement.self),
              let columnText = symbol("sqlite3_column_text", ColumnText.self),
              let columnBytes = symbol("sqlite3_column_bytes", ColumnBytes.self),
              let columnDouble = symbol("sqlite3_column_double", ColumnDouble.self),
              let columnInt64 = symbol("sqlite3_column_int64", ColumnInt64.self),
              let errorMessage = symbol("sqlite3_errmsg", ErrorMessage.self),
              let libraryVersion = symbol("sqlite3_libversion", LibraryVersion.self)
        else { return nil }
        (self.open, self.close, self.exec, self.prepare) = (open, close, exec, prepare)
        (self.bindText, self.bindDouble, self.bindInt64) = (bindText, bindDouble, bindInt64)
        (self.step, self.reset, self.finalize) = (step, reset, finalize)
        (self.columnText, self.columnBytes, self.columnDouble, self.columnInt64) = (columnText, columnBytes, columnDouble, columnInt64)
        self.errorMessage = errorMessage
        version = libraryVersion().map { String(cString: $0) } ?? "?"
    }
}

/// A connection with the statements the workload runs, prepared once (as an app keeps them).
final class SQLiteConnection {
    let library: SQLiteLibrary
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Opens (creating) the database at `path` in WAL mode with `synchronous=FULL`: one sync of the WAL per
    /// commit, the durability the repository gives.
    init(_ library: SQLiteLibrary, path: String) throws {
        self.library = library
        // SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        guard library.open(path, &db, 0x2 | 0x4, nil) == 0 else { throw Failure(description: "cannot open \(path)") }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
    }

    deinit {
        for statement in statements.values { _ = library.finalize(statement) }
        _ = library.close(db)
    }

    func execute(_ sql: String) throws {
        guard library.exec(db, sql, nil, nil, nil) == 0 else { throw failure(sql) }
    }

    private func failure(_ context: String) -> Failure {
        Failure(description: "\(context): \(library.errorMessage(db).map { String(cString: $0) } ?? "?")")
    }

    /// The prepared statement for `sql`, reset after `body` uses it.
    func with<Result>(_ sql: String, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        let statement: OpaquePointer
        if let known = statements[sql] {
            statement = known
        } else {
            var made: OpaquePointer?
            guard library.prepare(db, sql, -1, &made, nil) == 0, let made else { throw failure(sql) }
            statements[sql] = made
            statement = made
        }
        defer { _ = library.reset(statement) }
        return try body(statement)
    }

    func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        _ = library.bindText(statement, index, text, -1, SQLiteLibrary.transient)
    }

    /// Steps a statement that returns no row.
    func run(_ statement: OpaquePointer, _ context: String) throws {
        guard library.step(statement) == SQLiteLibrary.done else { throw failure(context) }
    }

    func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = library.columnText(statement, column) else { return "" }
        let count = Int(library.columnBytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
