// CommandLineSupport: work in progress.
