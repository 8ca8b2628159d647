import ArchiveStore
import Testing

/// `StoreError` as callers meet it: its description, and its codes as `catch` patterns like the other two
/// error types'.
@Suite("StoreError")
struct StoreErrorTests {
    func fail(_ code: StoreError.Code) throws { throw StoreError(code, "why", path: "/data/x.archive") }

    @Test func aCodeMatchesInACatchPattern() {
        var caught: [String] = []
        for code in [StoreError.Code.locked, .notFound, .io] {
            do {
                try fail(code)
            } catch StoreError.Code.locked {
                caught.append("locked")
            } catch StoreError.Code.notFound {
                caught.append("notFound")
            } catch {
                caught.append("other")
            }
        }
        #expect(caught == ["locked", "notFound", "other"])
        #expect(!(StoreError.Code.locked ~= (StoreErrorTests.Unrelated() as any Error)))
    }

    @Test func theDescriptionNamesThePathAndTheReason() {
        #expect(StoreError(.io, "why", path: "/data/x.archive").description == "store: /data/x.archive: why")
    }

    struct Unrelated: Error {}
}
