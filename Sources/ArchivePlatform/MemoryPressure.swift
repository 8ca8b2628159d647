#if canImport(Darwin)
import Dispatch
#endif

/// Calls a handler when the system says memory is short (`.warning` or `.critical`), for as long as the
/// value lives. Where the system says nothing of the kind (Linux), it never calls.
///
/// Mirrors `DispatchSource.makeMemoryPressureSource(eventMask:queue:)`, the source behind
/// `UIApplication.didReceiveMemoryWarningNotification`.
package final class MemoryPressure: @unchecked Sendable { // Sendable: the source is set up once in init and cancelled in deinit; a dispatch source is thread-safe.
    #if canImport(Darwin)
    private let source: any DispatchSourceMemoryPressure
    #endif

    /// Starts watching; `handler` runs on a utility-priority queue of the system's, once per event.
    package init(_ handler: @escaping @Sendable () -> Void) {
        #if canImport(Darwin)
        source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: .global(qos: .utility))
        source.setEventHandler(handler: handler)
        source.activate()
        #endif
    }

    /// Whether this platform ever calls the handler.
    package static var isAvailable: Bool {
        #if canImport(Darwin)
        true
        #else
        false
        #endif
    }

    deinit {
        #if canImport(Darwin)
        source.cancel()
        #endif
    }
}
