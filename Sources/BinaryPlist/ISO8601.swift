// Placeholder until the XML date codec lands (issue 2).
enum ISO8601 {
    static func format(_ date: PlistDate) -> String? { nil }
}
