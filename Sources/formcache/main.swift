import CommandLineSupport
import FormCacheCLI

StandardProcess.exit(
    FormCacheTool.run(arguments: StandardProcess.arguments, environment: StandardProcess.environment, io: .standard))
