import InspectorCLI

Inspector.main()
