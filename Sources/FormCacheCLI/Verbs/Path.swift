import ArchiveStore
import CommandLineSupport

extension Verbs {
    static func path(_ session: Session) -> Command {
        Command(
            name: "path", abstract: "Print the data directory.",
            discussion: """
                $FORMCACHE_HOME, else $XDG_DATA_HOME/formcache, else ~/.local/share/formcache. It is created on \
                the first write.
                """
        ) { context in
            context.stdout.write(try session.cache().directory + "\n")
            return ExitStatus.success
        }
    }
}
