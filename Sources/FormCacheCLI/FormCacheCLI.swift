// FormCacheCLI: work in progress.
