// Placeholder until the XML reader lands (issue 2).
public struct XMLPlistReader {
    public var limits: PlistLimits
    public init(limits: PlistLimits = .default) { self.limits = limits }
    public func decode(_ bytes: [UInt8]) throws -> PlistValue {
        throw PlistError(.invalidXML, "XML reading is not implemented yet", format: "xml plist")
    }
}
