// InspectorCLI: work in progress.
