/// Told how far a long operation has come: `completed` units (records, entries, bytes; the operation says
/// which) of `total`, or of an unknown total (`nil`). Called synchronously on the calling thread, as the work
/// goes (at most once a unit), never after the operation returns; it must not call back into the store or
/// cache it reports on.
///
/// Plays the part of Foundation's `Progress` (`completedUnitCount` of `totalUnitCount`) for a caller that draws
/// its own progress, such as the command-line tools' progress line.
public typealias ProgressHandler = (_ completed: Int, _ total: Int?) -> Void
