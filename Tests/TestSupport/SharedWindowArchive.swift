import BinaryPlist
import KeyedArchive

/// A keyed archive shaped like a compiled nib's views: `root` is an NSArray of `views` NSView objects, each
/// with a `tag` (its index) and a `window` referring to one NSWindow with `windowFields` integer fields
/// `f0`, `f1`, ... (`f<i>` = i, or -i for `changedField`). `$objects` = $null, the array, the window, the
/// views, then the classes NSArray, NSWindow, NSView. The window's entry is read at each of the `views`
/// references: a walk that charged its value budget per read rather than per object ran out on it.
public enum SharedWindowArchive {
    public static func bytes(views: Int, windowFields: Int, changedField: Int? = nil,
                             format: PlistFormat = .binary) throws -> [UInt8] {
        func uid(_ i: Int) -> PlistValue { .uid(PlistUID(UInt64(i))) }
        let arrayClass = 3 + views, windowClass = arrayClass + 1, viewClass = arrayClass + 2
        var window: PlistDictionary = ["$class": uid(windowClass)]
        for i in 0..<windowFields { window["f\(i)"] = .integer(PlistInteger(i == changedField ? -i : i)) }
        var objects: [PlistValue] = ["$null", .dictionary(["$class": uid(arrayClass), "NS.objects": .array((0..<views).map { uid(3 + $0) })]),
                                     .dictionary(window)]
        for i in 0..<views {
            objects.append(.dictionary(["$class": uid(viewClass), "window": uid(2), "tag": .integer(PlistInteger(i))]))
        }
        for (name, supers) in [("NSArray", ["NSObject"]), ("NSWindow", ["NSResponder", "NSObject"]),
                               ("NSView", ["NSResponder", "NSObject"])] {
            objects.append(.dictionary(["$classname": .string(name), "$classes": .array(([name] + supers).map { .string($0) })]))
        }
        return try ArchiveGraph(top: ["root": uid(1)], objects: objects).encoded(format: format)
    }
}
