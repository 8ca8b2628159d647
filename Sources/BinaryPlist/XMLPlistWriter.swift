// Placeholder until the XML writer lands (issue 2).
public struct XMLPlistWriter {
    public var limits: PlistLimits
    public init(limits: PlistLimits = .default) { self.limits = limits }
    public func encode(_ value: PlistValue) throws -> [UInt8] {
        throw PlistError(.unsupportedValue, "XML writing is not implemented yet", format: "xml plist")
    }
}
