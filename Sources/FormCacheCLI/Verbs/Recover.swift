import ArchiveStore
import CommandLineSupport
import FormCache

extension Verbs {
    static func recover(_ session: Session) -> Command {
        Command(
            name: "recover", abstract: "Keep the newest commit of a store whose commit record is damaged.",
            discussion: """
                When the store's newer commit record fails its checksum while the records it committed are intact \
                (bit rot, or a crash while it was written), formcache reports it (status 65) and changes nothing. \
                This takes those intact records as committed, rewrites the store, keeps the file as it was as \
                FormCache.cache.before-recovery, and prints how many record changes it kept. Any other store is \
                left alone (status 1).
                """
        ) { context in
            let cache = try session.cache()
            let recovered: Int
            do throws(StoreError) {
                recovered = try cache.recoverDamagedCommit()
            } catch where error.code == .invalidArgument || error.code == .notFound {
                throw CommandFailure(status: ExitStatus.failure, error.description + "\nHint: only a store whose commit record is damaged is recovered.")
            } catch {
                throw CommandFailure(error)
            }
            context.stdout.write("\(recovered)\n")
            try requireOutput(context, afterChange: "the store was recovered (\(recovered) record changes kept)")
            return ExitStatus.success
        }
    }
}
