import ArchivePlatform

/// A locked device, for an app's own tests: an engine given one sees the files of its Data Protection class
/// refused as an iPhone refuses them while it is locked, on every platform (a simulator, a Mac, Linux), so that
/// the app's locked-device path (a background fetch, a widget, a push) runs in its tests.
///
/// ```swift
/// let device = LockedDeviceSimulation()
/// var options = RepositoryOptions()
/// options.fileProtection = .complete
/// options.lockedDeviceSimulation = device
/// let workouts = ArchiveRepository<Workout>(path: path, options: options)
///
/// device.isLocked = true
/// do { try workouts.add(workout) }
/// catch let error as StoreError where error.code == .protectedDataUnavailable { /* queue it for later */ }
/// ```
///
/// What is refused follows the engine's ``RepositoryOptions/fileProtection`` (or
/// ``CacheOptions/fileProtection``), as the system's keys do:
///
/// | class | refused while |
/// |---|---|
/// | ``FileProtection/complete`` | locked, or not unlocked since the device started |
/// | ``FileProtection/completeUnlessOpen`` | opening a file while locked (files already open keep working), or anything before the first unlock |
/// | ``FileProtection/completeUntilFirstUserAuthentication``, or `nil` (the system's default) | not unlocked since the device started |
/// | ``FileProtection/none`` | never |
///
/// A refused open, read, write, sync or truncate fails with `EPERM`, as the kernel's, which the engine reports
/// as it does on a device: ``StoreError/Code/protectedDataUnavailable`` from a repository, a `FormCache` or a
/// cache's `set`, a miss from a cache's read. Nothing stored is changed by a refused call.
///
/// The engine keeps the simulation it was given: change ``isLocked`` and ``hasBeenUnlockedSinceStart`` at
/// any time, from any thread. Production code leaves the option `nil` (the default), where it costs nothing.
///
/// Plays the part of `UIApplication.isProtectedDataAvailable` and the `protectedDataWillBecomeUnavailable`
/// notifications on a device.
public final class LockedDeviceSimulation: Sendable {
    private struct State {
        var locked: Bool
        var unlockedSinceStart: Bool
    }
    private let state: Locked<State>

    /// A device that is unlocked (`locked: false`) or locked, and has been unlocked since it started or not.
    public init(locked: Bool = false, hasBeenUnlockedSinceStart: Bool = true) {
        state = Locked(State(locked: locked, unlockedSinceStart: hasBeenUnlockedSinceStart))
    }

    /// Whether the device is locked now. Setting it to `false` also marks the device unlocked since it started.
    public var isLocked: Bool {
        get { state.withLock { $0.locked } }
        set { set(locked: newValue, unlockedSinceStart: newValue ? nil : true) }
    }

    /// Whether the device has been unlocked since it started (`false`: a background launch after a restart,
    /// before the user's first unlock). Setting it to `false` also locks the device.
    public var hasBeenUnlockedSinceStart: Bool {
        get { state.withLock { $0.unlockedSinceStart } }
        set { set(locked: newValue ? nil : true, unlockedSinceStart: newValue) }
    }

    /// Sets what is given, in one step.
    private func set(locked: Bool?, unlockedSinceStart: Bool?) {
        state.withLock {
            if let locked { $0.locked = locked }
            if let unlockedSinceStart { $0.unlockedSinceStart = unlockedSinceStart }
        }
    }

    /// Whether `call` on a file of class `protection` is refused now.
    func refuses(_ call: FileSystem.Call, protection: FileProtection?) -> Bool {
        guard Self.contentCalls.contains(call) else { return false }
        let now = state.withLock { $0 }
        switch protection {
        case FileProtection.none?: return false
        case FileProtection.complete?: return now.locked || !now.unlockedSinceStart
        case FileProtection.completeUnlessOpen?: return !now.unlockedSinceStart || (now.locked && call == .open)
        default: return !now.unlockedSinceStart // completeUntilFirstUserAuthentication, nil, a class unknown here
        }
    }

    /// The calls a device refuses on a file whose class key is not available.
    private static let contentCalls: Set<FileSystem.Call> = [.open, .read, .write, .sync, .truncate]
}
