import ArchiveStore
import CommandLineSupport
import FormCache

extension Verbs {
    static func moveAside(_ session: Session) -> Command {
        Command(
            name: "move-aside", abstract: "Rename an unreadable store so that a new one can start.",
            discussion: """
                formcache never overwrites or repairs a store it cannot read. This renames FormCache.cache to \
                FormCache.cache.corrupt-<UTC time> and prints the new path; the next 'add' starts a new store. \
                A readable store is left alone (status 1).
                """
        ) { context in
            let cache = try session.cache()
            do throws(StoreError) {
                context.stdout.write(try cache.moveAside() + "\n")
                return ExitStatus.success
            } catch where error.code == .invalidArgument || error.code == .notFound {
                throw CommandFailure(status: ExitStatus.failure, error.description + "\nHint: only an unreadable store is moved aside.")
            } catch {
                throw CommandFailure(error)
            }
        }
    }
}
