import BinaryPlist
import CommandLineSupport
import Foundation
import InspectorCLI
import KeyedArchive
import ArchiveInspection
import Testing
import TestSupport

/// `keyedarchive decode`: archive-JSON of fixtures, `--pretty`, and the budget for heavily shared graphs.
@Suite struct DecodeCommandTests {
    @Test func uuidPrintsUppercaseAsFoundationReadsIt() throws {
        let path = fixture("keyed/kiler129-NSKeyedUnarchiver/UUIDv4.bin.plist")
        let result = inspect(["decode", path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.text == #"{"uuid": "E98A110A-1409-47AB-B9C9-66F2633F570F"}"# + "\n")
        let theirs = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSUUID.self], from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect((theirs as? NSUUID)?.uuidString == "E98A110A-1409-47AB-B9C9-66F2633F570F")
    }

    @Test func relativeURLFromAnXMLArchivePrintsAsItsAbsoluteString() {
        let result = inspect(["decode", fixture("keyed/swift-corelibs-foundation/xml/NSKeyedUnarchiver-URLTest.plist")])
        #expect(result.status == 0)
        #expect(result.text == #"{"url": "https://www.example.com/foo.xml"}"# + "\n")
    }

    @Test(arguments: ["keyed/kiler129-NSKeyedUnarchiver/miscTypes.bin.plist",
                      "keyed/kiler129-NSKeyedUnarchiver/xml/miscTypes.xml.plist"])
    func customClassPrintsAsClassAndFieldsInFileOrder(file: String) {
        let result = inspect(["decode", fixture(file)])
        #expect(result.status == 0)
        let url = #""url": {"url": "https://example.com/foo/bar?a=b#hash"}"#
        let regex = #""regex": {"class": "NSRegularExpression", "fields": {"NSOptions": 0, "NSPattern": "(.*)"}}"#
        // The XML writer sorted the keys of this object; the binary one kept the encoding order.
        let fields = file.contains("/xml/") ? "\(regex), \(url)" : "\(url), \(regex)"
        #expect(result.text == #"{"class": "TestDummy", "fields": {"# + fields + "}}\n")
    }

    @Test func cyclesPrintAsRefToTheClassStillBeingPrinted() {
        let custom = inspect(["decode", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(custom.status == 0)
        #expect(custom.text == #"{"class": "crap.Foo", "fields": {"recursive": {"ref": "crap.Foo"}, "title": "hello"}}"# + "\n")
        let array = inspect(["decode", fixture("keyed/michaelwright235-nskeyedunarchiver/circularReference.plist")])
        #expect(array.status == 0)
        #expect(array.text == #"[{"ref": "NSMutableArray"}]"# + "\n")
    }

    @Test func sharedReferencesPrintInFullAtEachUse() {
        let result = inspect(["decode", fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")])
        #expect(result.status == 0)
        let url = #"{"url": "https://example.com/foo/bar?a=b#hash"}"#
        #expect(result.text == #"{"dict": {"copyOne": "# + url + #", "copyTwo": "# + url + "}}\n")
    }

    @Test func standardClassesOfAFoundationArchive() {
        let result = inspect(["decode", fixture("keyed/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist")])
        #expect(result.status == 0)
        #expect(result.text == #"{"dict": {"array": [null, "hello", 34545, {"dict": {"key": "val"}}], "string": "hello", "#
            + #""url": {"url": "https://www.swift.org/index.xml"}, "uuid": {"uuid": "71DC068E-3420-45FF-919E-3A267D55EC22"}}}"#
            + "\n")
    }

    @Test func prettyIndentsOneSpacePerLevel() {
        let result = inspect(["decode", "--pretty", fixture("keyed/bpylist2/circular_archive.plist")])
        #expect(result.status == 0)
        #expect(result.text == """
            {
             "class": "crap.Foo",
             "fields": {
              "recursive": {
               "ref": "crap.Foo"
              },
              "title": "hello"
             }
            }

            """)
    }

    /// Every Apple-made keyed archive prints as JSON, except the one nib whose sharing is past the budget.
    @Test(arguments: appleArchives)
    func everyAppleFixtureDecodesOrHitsTheBudget(file: String) throws {
        let result = inspect(["decode", fixture(file)])
        if file == explodingNib {
            #expect(result.status == ExitStatus.dataError)
            return
        }
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.text.hasSuffix("\n"))
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(result.stdout), options: [.fragmentsAllowed]) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(file))))
        #expect(result.text == (try ArchiveJSON.render(bytes)) + "\n")
    }

    @Test func nibPastTheBudgetExits65WithOneLineNamingTheLimitAndTheGraphForm() {
        let path = fixture(explodingNib)
        let result = inspect(["decode", path])
        #expect(result.status == ExitStatus.dataError)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: \(path): archive-JSON would print more than 100000 objects"))
        #expect(result.stderr.contains("--max-objects"))
        #expect(result.stderr.contains("run 'keyedarchive decode --graph', which prints each object once"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1 && result.stderr.hasSuffix("\n"))
        // The same nib prints, each object once, with the graph form and with dump.
        #expect(inspect(["decode", "--graph", path]).status == 0)
        #expect(inspect(["dump", path]).status == 0)
    }

    @Test func maxObjectsLowersAndRaisesTheBudget() throws {
        let scratch = try TemporaryDirectory(prefix: "inspector")
        defer { scratch.remove() }
        let dir = scratch.url
        // A chain of 17 objects, each referring twice to the next: 2^17 - 1 = 131071 objects to print.
        let path = dir.appendingPathComponent("diamonds.plist").path
        try Data(DiamondChain.bytes(length: 17)).write(to: URL(fileURLWithPath: path))
        let byDefault = inspect(["decode", path])
        #expect(byDefault.status == ExitStatus.dataError)
        #expect(byDefault.stderr.contains("more than 100000 objects"))
        let raised = inspect(["decode", "--max-objects", "131071", path])
        #expect(raised.status == 0)
        #expect(raised.stderr == "")
        #expect(raised.text.components(separatedBy: #"{"class": "Node""#).count - 1 == 131071)
        let justShort = inspect(["decode", "--max-objects=131070", path])
        #expect(justShort.status == ExitStatus.dataError)
        #expect(justShort.stderr.contains("more than 131070 objects"))
        let small = inspect(["decode", "--max-objects", "1", fixture("keyed/kiler129-NSKeyedUnarchiver/reference.bin.plist")])
        #expect(small.status == ExitStatus.dataError)
        #expect(small.stderr.contains("more than 1 objects"))
    }
}

/// The nib whose archive-JSON is past the default budget (its sharing is exponential).
let explodingNib = "keyed/Flycut-nib/MainMenu.keyedobjects.nib"

/// Apple-made keyed archives below `Fixtures/keyed`: not broken/, non-apple/ or embedded/, no companions.
let appleArchives: [String] = {
    let base = fixtures.appendingPathComponent("keyed")
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
    var out: [String] = []
    for case let url as URL in walker {
        let relative = String(url.path.dropFirst(fixtures.path.count + 1))
        let name = url.lastPathComponent
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
              !relative.contains("/broken/"), !relative.contains("/non-apple/"), !relative.contains("/embedded/"),
              !name.hasSuffix(".expected.txt"), !name.hasSuffix(".plist.json"), !name.hasSuffix(".md"),
              !name.hasPrefix("COPYING"), !name.hasPrefix("LICENSE")
        else { continue }
        out.append(relative)
    }
    return out.sorted()
}()
