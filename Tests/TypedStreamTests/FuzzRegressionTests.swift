import BinaryPlist
import Foundation
import KeyedArchive
import Testing
import TypedStream

/// One named test for every input the typedstream fuzzer (Fuzz/run.sh typedstream) found.
@Suite("Typedstream fuzz regressions")
struct FuzzRegressionTests {
    static let generic = ClassRegistry.standard.allowingUnknownClasses()

    /// The fuzzer's property: what is read (classes and groups kept) writes again, reads again, and converts to
    /// the same keyed archive, which converts back to a stream that converts the same.
    func checkRoundTrip(_ bytes: [UInt8]) throws {
        let values = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic).decodeAllValues()
        let rewritten = try rewrittenKeepingClasses(bytes, registry: Self.generic)
        #expect(try TypedStreamUnarchiver(forReadingWith: rewritten, registry: Self.generic).decodeAllValues().count == values.count)
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: Self.generic)
        let again = try TypedStreamConversion.keyedArchive(fromTypedStream: rewritten, registry: Self.generic)
        if keyed != again { Issue.record("the stream and its rewrite convert to different keyed archives") }
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        if try TypedStreamConversion.keyedArchive(fromTypedStream: back, registry: Self.generic) != keyed {
            Issue.record("the keyed archive converts back to a stream that converts differently")
        }
    }

    /// crash-3da5a7b7: a Messages body whose NSString class name was garbled, so its attribute names are
    /// unknown-class objects; dictionaries keyed by such objects were written in hash order (every
    /// ArchivedObject described alike), by both archivers.
    @Test func dictionaryKeyedByUnknownObjectsConvertsTheSameAfterARewrite() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhBlOhAFpdGFibGVBdHRyaWJ1dGVkU3RyaW5nAISEEk5TQXR0cmlidXRlZFN0cmluZwCEhAhOU09iamVjdACFkoSEhA9OU011dGFibGVTdHJpbmcBhIQITlNTdIVpbmcBlYQBKwPvv7yGhAJpSQEBkoSEhAxOU0RpY3Rpb25hcnkAlYQBaQaShJiYIl9fa0lNRmlsZVRyYW5zZmVyR1VJREF0dHJpYnV0ZS5hbWWGkoSYmClhdF8wX0JFNTg4Nzk5LUM0QkMtNDdERi1BNTZELTdFRTkwQzc0OTExRIaShJiYI19fa0lNSW5saW5lTWVkaWFIZWlnaHRBdHRyaWJ1dGVOYW1lhpKEhIQITlNOdW1iZXIAhIQHTlNWYWx1ZQCVhAEqhIQBcZ+BWAKGkoSYmCZfX2tJTUJhc2VXcml0aW5nRGlyZWN0aW9uQXR0cmlidXRlTmFtZYaShJ+eoZ//hpKEmJgdX19rSU1NZXNzYWdlUGFydEF0dHJpYnV0ZU5hbWWGkoSfnqGfAYaShJiYGl9fa0lNRmlsZW5hbWVBdHRyaWJ1dGVOYW1lhpKEmJgpYnJpbGxpYW50LWtpZHMtdGVzdC1hbnN3ZXJzLTMyLTkzMDQyLmpwZWeGkoSYmCJfX2tJTUlubGluZU1lZGlhV2lkdGhBdHRyaWJ1dGVOYW1lhpKEn56hn4GUAoaGhg==")!))
    }

    /// crash-b35a0ae3: two classes named NSValue with different superclasses (one garbled) in one stream;
    /// the archiver numbered classes by name, so the second was written as a reference to the first.
    @Test func oneClassNameWithTwoSuperclassChainsKeepsBoth() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhAdOU0E7cmF5AISECE5TTyNqZWN0AIWEAWkFkoSEhAdOU1ZhbHVlAJSEASqEhA17X05TUmFuZ2U9UVF9mAMEhpKElpeEhAx7Q0dQb2lufD1kZH2Z/wGGkoSWl4SEC3tDR1NpemU9ZGR9mgMEhpKElpeEhCB7Q0dSZWN0PXtDR1BvaW50PWRkfXtDR1NpemU9ZGR9fZsBAgMEhpKElpeEhBN7TlNFZGdlSW5zZXRzPWRkZGR9nAECAwSGhg==")!))
    }

    /// crash-199e91f7: a dictionary whose two keys are unknown-class objects of the same contents (a garbled
    /// NSString class); entries whose keys tie are now ordered by their values, in both archivers.
    @Test func dictionaryWithTwoEqualLookingKeysWritesInOneOrder() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZIHoA4QBQISEhAxOU0RpY3Rpb25hcnkAhIQITlNPYmplY3QAhYQBaQKShISECE5TU3RyaWVnAZSEASsCazGGkoSWlwF2hpKElpcCazGGkoSEhAhOU1N1bWJlcgCEhAdOU1ZhbHVlAJSEASqEhAFxmwGGhg==")!))
    }

    /// crash-68356905: a nib whose `I` value was stored with the 8-byte tag (0x87); it was read, and the
    /// archiver refused to write it back. An integer must fit its type when read: outOfRange.
    @Test func anIntegerPastItsTypeIsOutOfRangeWhenRead() throws {
        let bytes = [UInt8](Data(base64Encoded: "BAt0eXBlZHN0cmVhbYED6IQBQISEhA5OU0lCT2JqZWN0RGF0YYEA4ISECE5TT2JqZWN0AIWShISEDk5TQ3VzdG9tT2JqZWN0KZSEAkBAhISED05Ts4qLnmJsZVN0cmluZwGEhAhOU1N0cmluZwGUhAErDU5TQXBwbGljYXRpb26GhYaEAWlVloSEhApOU01lbnVJdGVtgQH5lJKEhIQGTlNNZW51gQDMlIQEaUBAQACEmJkERm9udIaEhIQOTlNNdXRhYmxlQXJyYXkAhIQHTlNBcnJheQCUmg2ShJuSnIQNaUBASUlpQEBAQDppQACEmZkKU2hvdyBGb250c4aEmZkBdIaCABAAAIJ/////AIWEhIQQTlNDdXN0b21SZXNvdXJjZSmUloSZmQdOU0ltYWdlhoSZmQ9OU01lbnVDaGVja21hcmuGhoWEppanhJmZEE5TTWVudU1peGVkU3RhdGWGhoUAhZKFkoWGkoSbkpygAISZmQRCb2xkhoSZmQFihoIAEAAAgn////8AhaWFqYUChZKFkoWGkoSbkpygAISZmQZJdGFsaWOGhJmZAWmGggAQAACCf////wCFpYWphQGFkoWShYaShJuSnKAAhJmZCVVuZGVybGluZYaEmZkBdYaCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5KcoIJAAAAAhJmZAIa1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSnKAAhJmZBEtlcm6GtYIAEAAAgn////8AhaWFqYQOc3VibWVudUFjdGlvbjoAhZKFkoSdnQCEmJkES2VyboaEoJoEkoSbkriggoAAAACEmZkLVXNlIERlZmF1bHSGtYIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkriggoAAAACEmZkIVXNlIE5vbmWGtYIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkriggoAAAACEmZkHVGlnaHRlboa1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSuKCCgAAAAISZmQZMb29zZW6GtYIAEAAAgn////8AhaWFqYUAhZKFkoWGhoWGhpKEm5KcoACEmZkITGlnYXR1cmWGtYIAEAAAgn////8AhaWFqaIAhZKFkoSdnQCEmJkITGlnYXR1cmWGhKCaA5KEm5LFoIKAAAAAhJmZC1VzZSBEZWZhdWx0hrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5LFoIKAAAAAhJmZCFVzZSBOb25lhrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5LFoIKAAAAAhJmZB1VzZSBBbGyGtYIAEAAAgn////8AhaWFqYUAhZKFkoWGhoWGhpKEm5KcoACEmZkIQmFzZWxpbmWGtYIAEAAAgn////8AhaWFqaIAhZKFkoSdnQCEmJkIQmFzZWxpbmWGhKCaBZKEm5LQoIKAAAAAhJmZC1VzZSBEZWZhdWx0hrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5LQoIKAAAAAhJmZC1N1cGVyc2NyaXB0hrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5LQoIKAAAAAhJmZCVN1YnNjcmlwdIa1ggAQAACCf////wCFpYWphQCFkoWShYaShJuS0KCCgAAAAISZmQVSYWlzZYa1ggAQAACCf////wCFpYWphQCFkoWShYaShJuS0KCCgAAAAISZmQVMb3dlcoa1ggAQAACCf////wCFpYWphQCFkoWShYaGhYaGkoSbkpyggkAAAAC1tYIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkpygAISZmQtTaG93IENvbG9yc4a1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSnKCCQAAAALW1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSnKAAhJmZCUNvcHkgRm9udIaEmZkBMYaCABAAAIJ/////AIWlhamFAIWShZKFhpKahoSZmQtfTlNGb250TWVudYaGoACEmZkKUGFzdGUgRm9udIaEmZkBNIaCABAAAIJ/////AMmlhamFAIWShZKFhpyWhJuShJ2dAISZmQhTcGVsbGluZ4aEoJoDkoSbkuigAISZmQtTcGVsbGluZy4uLoaEmZkBOoaCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5LooACEmZkOQ2hlY2sgU3BlbGxpbmeGhJmZATuGggAQAACCf////wCFpYWphQCFkoWShYaS54aFhqAAhJmZGkNoZWNrIFNwZWxsaW5nIEFzIFlvdSBUeXBlhrWCABAAAIJ/////AIWlhamFAIWShZKFhuiWhJaWhJmZDU5TRm9udE1hbmFnZXKGhYaVlru4loSbkoSdnQCEmJkGV2luZG93hoSgmgOShJuS9aAAhJmZCE1pbmltaXplhoSZmQFthoIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkvWggsAAAAC1tYIAEAAAgn////8AhaWFqYUAhZKFkoWGkvSGhJmZDl9OU1dpbmRvd3NNZW51hoagAISZmRJCcmluZyBBbGwgdG8gRnpvbnSGtYIAEAAAgn////8AhaWFqYUAhZKFkoWG9ZaEnZ0AhJiZCFNlcnZpY2VzhoSgmgCGhJmZD19OU1NlcnZpY2VzTWVudYaGhJuShJ2dAISZmQdSb3RhdGVyhoSgmguShJuSA6AAhJmZDUFib3V0IFJvdGF0ZXKGtYIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkgOggsAAAAC1tYIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkgOgAISZmQ5QcmVmZXJlbmNlcy4uLoa1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSA6CCwAAAALW1ggAQAACCf////wCFpYWphQCFkoWShYaSApKEm5IDoILAAAAAtbWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IDoACEmZkMSGlkZSBSb3RhdGVyhoSZmQFohoIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkgOgAISZmQtIaWRlIE90aGVyc4a1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSA6AAhJmZCFNob3cgQWxshrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IDoILAAAAAtbWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IDoACEmZkMUXVpdCBSb3RhdGVyhoSZmQFxhoIAEAAAgn////8AhaWFqYUAhZKFkoWGhoSZmQxfTlNBcHBsZU1lbnWGhqAAhJmZCFNlcnZpY2VzhrWCABAAAIJ/////AIWlhamiAIWShZL+hpYCA5bMxZbenJbohJuShJ2dAISYmQRFZGl0hoSgmgqShJuSG6AAhJmZBFVuZG+GhJmZAXqGggAQAACCf////wCFpYWphQCFkoWShYaShJuSG6AAhJmZBFJlZG+GhJmZAVqGggAQAACCf////wCFpYWphQCFkoWShYaShJuSG6CCwAAAALW1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSG6AAhJmZA0N1dIaEmZkBeIaCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IboACEmZkEQ29weYaEmZkBY4aCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IboACEmZkFUGFzdGWGhJmZAXaGggAQAACCf////wCFpYWphQCFkoWShYaShJuSG6AAhJmZBUNsZWFyhrWCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IboACEmZkKU2VsZWN0IEFsbIaEmZkBYYaCABAAAIJ/////AIWlhamFAIWShZKFhpKEm5IboILAAAAAtbWCABAAAIJ/////AIWlhamFAIWShZKFhpIahoWGoADptYIAEAAAgn////8AhaWFqaIAhZKFkuiGlggDloSbkoSdnQCEmJkERmlsZYaEoJoLkoSbkjWgAISZmQNOZXeGhJmZAW6GggAQAACCf////wCFpYWphQCFkoWShYaShJuSNaAAhJmZB09wZW4uLi6GhJmZAW+GggAQAACCf////wCFpYWphQCFkoWShYaShJuSNaAAhJmZC09wZW4gUmVjZW50hrWCABAAAIJ/////AIWlhamiAIWShZKEnZ0AhJiZC09wZW4gUmVjZW50hoSgmgGShJuSQKCCgAAAAISZmQpDbGVhciBNZW51hrWCABAAAIJ/////AIWlhamFAIWShZKFhoaEmZkWX05TUmVjZW50RG9jdW1lbnRzTWVudYaGhpKEm5I1oILAAAAAtbWCABAAAIJ/////AIWlhamFAIWShZKFhpI0koSbkjWgAISZmQRTYXZlhoSZmQFzhoIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkjWgAISZmQpTYXZlIEFzLi4uhoSZmQFThoIAEAAAgn////8AhaWFqYUAhZKFkoWGkoSbkjWgAISZmQZSZXZlcnSGtQCCf////wCFpYWphQCFkoWShYaShJuSNaCCwAAAALW1ggAQAACCf////wCFpYWphQCFkoWShYaShJuSNaAAhJmZDVBhZ2UgU2V0dXAuLi6GhJmZAVCGggAQAACCf////wCFpYWphQCFkoWShYaShJuSNaAAhJmZCFByaW50Li4uhoSZmQFwhoIAEAAAgn////8AhaWFqYUAhZKFkoWGhoWGoACEmZkFQ2xvc2WGhJmZAXeGggAQAACCf////wCFpYWphQCFkoWShYY1loSbkoSdnQCEmJkESGVscIaEoJoBkliGhYagAISZmQxSb3RhdGVyIEhlbHCGhJmZAT+GggAQAACCf////wCFpYWphQCFkoWShYZZlr24lhQDloSbkoSdnQCEmZkITWFpbk1lbnWGhKCaBpJekoSbkl+gAISZmQRGaWxlhrWHABAAAIJ/////AIWlhamiAIWShZI1hpKEm5JfoACEmZkERWRpdIa1ggAQAACCf////wCFpYWpogCFkoWSG4aShJuSX6AAhJmZBEZvbnSGtYIAEAAAgn////8AhaWFqaIAhZKFkpyGkoSbkl+gAISZmQZXaW5kb3eGtYIAEAAAgn////8AhaWFqaIAhZKFkvWGkoSbkl+gAISZmQRIZWxwhrWCABAAAIJ/////AIWlhamiAIWShZJZhoaEmZkLX05TTWFpbk1lbnWGhqAABLWCABAAAIJ/////AIWlhamiAIWShZIDhl+WxcOW6+iWODWWwbiWA16WDQOWBgOWMxuWFQOW29CWv7iWLhuWHhuWZl+W7uiWWWqW2dCW0M6WrpyWSjWWKxuWPjWWysWWsZyWopyW+PWWCQOW3ZyWTTWWQD6WEAOWG2SWGhuW+/WWYl+WuLaWIRuW09CWCwOWw5yWMBuWzpyWq5yWTzWWZF+WQ0CWNWKWRzWWtpyWUzWWJBuW4JyWOzWWUDWWaF+W1dCWtJyWJRuW4ZyWal+WyMWWRjWWnGaW9WiWX5WWKBuW19CWDAOWEgOaPpbyhJmZDEZvbnQgTWFuYWdlcoaW3YSZmQIxM4aW54SZmQpOU01lbnVJdGVthpaahJmZAjE3hpZNhJiZAjEwhpa7hJmZAzExMYaWuISZmQIxMYaWyoSZmQIxMYaWtoSZmQIxNYaWG4SZmQZOU01lbnWGlhqEmZkMTlNNZW51SXRlbTEzhpa9hJmZAjExhpb7hJiZAIaW6ISZmQZOU01lbnWGlmJ5luGEmZkCMTKGliGEmZkMTlNNZW51SXRlbTExhpZYeZbZhJmZAjEyhpbDhJmZAjE0hpZqhJiZATGGls6EmZkDMTExhparhJmZAzExMIaWT4SYmQEyhpZkhJmZCk5TTWVudUl0ZW2GljiEmJkBOYaWFYSZmQQxMTExhpY1eZYkhJmZCk5TTWVudUl0ZW2GltOEmZkDMTExhpYzhJmZDE5TTWVudUl0ZW0xMoaWR4SYmQEzhpbghJmZBDExMTGGltuEmZkCMTGGljt5li6EmZkLTlNNZW51SXRlbTSGljSEmJkBMYaWHoSZmQtOU01lbnVJdGVtMoaWUISYmQE1hpbuhJmZC05TTWVudUl0ZW04hpZZhJiZATKGltWEmZkCMTOGlt6EmZkCMTGGliWEmZkLTlNNZW51SXRlbTOGllOEmJkBNoaWroSZmQIxOYaWMISZmQxOU01lbnVJdGVtMTCGliuEmZkLTlNNZW51SXRlbTmGlkqEmJkBOIaWwYSZmQIxMoaWyISZmQMxMTGGlpyEmZkCMTGGlgmEmZkDMTIxhpb1hZbrhJmZC05TTWVudUl0ZW02hpZfhJiZCE1haW5NZW51hpaihJmZAjE4hpaVhJiZDEZpbGUncyBPd25lcoaWRoSYmQE3hpaxhJmZAjE2hpbFhJmZAjExhpYohJmZC05TTWVudUl0ZW0xhpKEhIQMTlNNdXRhYmxlU2V0AISEBU5TU2V0AJSEAUkAhpKEoJoukoSEhBVOU05pYkNvbnRyb2xDb25uZWN0b3KBAM+EhA5OU05pYkNvbm5lY3RvchGUhANAQED4hYSYmRNwZXJmb3JtTWluaWF0dXJpemU6hoaShIEAq6j0hYSYmQ9hcnJhbmdlSW5Gcm9udDqGhpKEgQCrqFOFhJiZBnByaW50OoaGkoSBAKuoUIWEmJkOcnVuUGFnZUxheW91dDqGhpKEgQCrqFiFhJiZCXNob3dIZWxwOoaGkoSBAKuoQ4WEmJkVY2xlYXJSZWNlbnREb2N1bWVudHM6hoaShIEAq6gVlYSYmQp0ZXJtaW5hdGU6hoaShIEAq6gGlYSYmR1vcmRlckZyb250U3RhbmRhcmRBYm91dFBhbmVsOoaGkoSBAKuoEJWEmZkWaGlkZU90aGVyQXBwbGljYXRpb25zOoaGkoSBAKuoDZWEmZkFaGlkZTqGhpKEgQCrqBKVhJmZFnVuaGlkZUFsbEFwcGxpY2F0aW9uczqGhpKEgQCrqCWFhJiZBGN1dDqGhpKEgQCrqCuFhJiZBnBhc3RlOoaGkoSBAKuoIYWEmJkFcmVkbzqGhpKEgQCrqDCFhJiZCnNlbGVjdEFsbDqGhpKEgQCrqB6FhJiZBXVuZG86hoaShIEAq6gohYSYmQVjb3B5OoaGkoSBAKuoLoWEmJkGY2xlYXI6hoaShIEAq6jrhYSYmQ9zaG93R3Vlc3NQYW5lbDqGhpKEgQCrqO6FhJiZDmNoZWNrU3BlbGxpbmc6hoaShIEAq6jnhYSZmR50b2dnbGVDb250aW51b3VzU3BlbGxDaGVja2luZzqGhpKEgQCrqDSFhJmZDXBlcmZvcm1DbG9zZTqGhpKEgQCrqDiFhJmZDG5ld0RvY3VtZW50OoaGkoSBAKuoO4WEmZkNb3BlbkRvY3VtZW50OoaGkoSBAKuoR4WEmZkNc2F2ZURvY3VtZW50OoaGkoSBAKuoSoWEmZkPc2F2ZURvY3VtZW50QXM6hoaShIEAq6hNhYSZmRZyZXZlcnREb2N1bWVudFRvU2F2ZWQ6hoaShIEAq6iahYSYmQpwYXN0ZUZvbnQ6hoaShIEAq6jThYSYmQl1bnNjcmlwdDqGhpKEgQCrqMiFhJiZFXVzZVN0YW5kYXJkTGlnYXR1cmVzOoaGkoSBAKuo3oWEmJkVb3JkZXJGcm9udENvbG9yUGFuZWw6hoaShIEAq6ii8oSYmRRvcmRlckZyb250Rm9udFBhbmVsOoaGkoSBAKuowYWEmJkObG9vc2VuS2VybmluZzqGhpKEgQCrqNmFhJiZDnJhaXNlQmFzZWxpbmU6hoaShIEAq6ir8oSYmQ1hZGRGb250VHJhaXQ6hoaShIEAq6jbhYSYmQ5sb3dlckJhc2VsaW5lOoaGkoSBAKuo1YWEmJkMc3VwZXJzY3JpcHQ6hoaShIEAq6iu8oSYmQ1hZGRGb250VHJhaXQ6hoaShIEAq6i/hYSYmQ90aWdodGVuS2VybmluZzqGhpKEgQCrqMqFhJiZEXR1cm5PZmZMaWdhdHVyZXM6hoaShIEAq6jMhYSYmRB1c2VBbGxMaWdhdHVyZXM6hoaShIEAq6jXhYSYmQpzdWJzY3JpcHQ6hoaShIEAq6i9hYSYmQ90dXJuT2ZmS2VybmluZzqGhpKEgQCrqOGFhJiZCWNvcHlGb250OoaGkoSBAKuosYWEmJkKdW5kZXJsaW5lOoaGkoSBAKuou4WEmJkTdXNlU3RhbmRhcmRLZXJuaW5nOoaGhpLymoEAhIQCQGnngQC/qbuBAOapO0ip4IEA7am/gQDhqYEAtn+p3YEA3amBAQCBAQWp24EA3qnygQD6qYEAzoEAt6magQDjqU1wqYEA+oEBAqn4F6nugQC9qYEAtHqpgQDYgQDCqYEA8oEA/qlmgQDfqQuBAI+pgQDKgQC0qThJqVNOqWSBAKOpgQD8gQEDqRCBAJGpDIEAkKnXgQDpqeuBALupgQCuJ6mBAKolqf6BAIKpYlOpgQDIgQCzqYEAzIEAtakkgQCcqYEA4IEAxqmBAOqBAPmp2YEA8qlZaqmigQDoqYEA+IEBAak1UamBAQaBAQipgQC4gQCLqS6BAKSpXjipR0upPnypgQDCgQCvqQiBAMepgQD0gQD/qYEAslepgQDSgQC+qTOBAK6pgQDAgQCZqWgTqQKBAIOpgQDkgQD2qVhvqbiBAOSplQGpOFKpgQDmgQD3qRKBAJapzIEA26mBANCBALypMIEArKmBAPCBAP2pgQDogQD4qWpnqYEA4oEA9anDgQDsqUpQqRSBAJWpK4EAq6mBAP6BAQSpHoEAnqmBANSBAMCpXx2pGoEAuKlDfqm9gQDYqYEAuoEAjqnFgQDxqQmBAIGpQH2pIYEAranKgQDlqbaBAPOp0IEA9KmxgQDgqYEA3IEAxKnBgQDvqYEA1oEAwamBAPaBAQCpG4EAqalQTanegQDcqQ2BAIaptIEA2anogQC5qftcqQM5qYEAxoEAsqmBAMSBALCpgQDegQDFqYEA7IEA+6n1GKmBANqBAMOpgQDugQD8qciBAOepFYEAiKmBAQKBAQapgQEEgQEHqU9KqYEAvIEAkqmBAL6BAJipBjqpnIEA6qklgQCgqdOBAO6pRk+p1YEA8KmrgQDXqc6BAOup4YEA2qmBALBWqfQFqSiBAJ2proEA4pqBARqaAJKEmJkQSUJDb2NvYUZyYW1ld29ya4aG")!)
        let e = typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic).decodeAllValues() }
        #expect(e?.code == .outOfRange)
        #expect(e?.reason == "4503601816797183 does not fit I")
        let small = typedStreamFailure {
            _ = try TypedStreamUnarchiver(forReadingWith: header + [0x84, 0x01, UInt8(ascii: "s"), 0x82, 0x00, 0x00, 0x01, 0x00]).decodeAllValues()
        }
        #expect(small?.code == .outOfRange)
        #expect(small?.offset == 19)
    }

    /// crash-70911418: a stream of one group of 73 scalars (`IIII...sqs...B...`), system version 0. Nothing
    /// was wrong with the reader: the harness wrote each top-level scalar back as an object, and the `B` as
    /// Apple writes a BOOL (an NSNumber of type c), which reads back as an integer. The harness now rewrites
    /// streams of objects only and compares conversions when no Bool is among the values.
    @Test func aGroupOfScalarsReadsAndConvertsWithTheirTypes() throws {
        let bytes = [UInt8](Data(base64Encoded: "BAtzdHJlYW10eXBlZACESUlJSUlJSUlJSUlJSUlJSXNxc3Nxc3Nzc3Nzc3Nzc3Nzc3Nzc0Jzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3NJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABJSUlJSUlJSUlJSUlBSSVJSUlJSYFJASU=")!)
        let unarchiver = try TypedStreamUnarchiver(forReadingWith: bytes, registry: Self.generic)
        #expect(unarchiver.systemVersion == 0)
        let values = try unarchiver.decodeAllValues()
        #expect(values.count == 73)
        #expect(values.contains { $0 is Bool })
        #expect(values.first is UInt32)
        let keyed = try TypedStreamConversion.keyedArchive(fromTypedStream: bytes, registry: Self.generic)
        let top = try #require(try PropertyList.decode(keyed).dictionaryValue?["$top"]?.dictionaryValue)
        // The one group's type encoding, and its 73 values inline (the Bool a bool).
        #expect(top.count == 74)
        #expect(top["$types"]?.arrayValue?.count == 1)
        #expect(top.values.contains(.bool(true)) || top.values.contains(.bool(false)))
        let back = try TypedStreamConversion.typedStream(fromKeyedArchive: keyed)
        #expect(try TypedStreamUnarchiver(forReadingWith: back, registry: Self.generic).decodeAllValues().count == 73)
        #expect(try TypedStreamConversion.keyedArchive(fromTypedStream: back, registry: Self.generic) == keyed)
        #expect(typedStreamFailure { _ = try TypedStreamUnarchiver(forReadingWith: bytes).decodeObject() }?.code == .typeMismatch)
    }

    /// timeout-42c1d528: a mutated nib (a shared graph of unknown-class objects) on which the harness's own
    /// search for Bools walked every path of the graph; the reader, the rewrite and the conversion were fast.
    /// The search now looks into each object once.
    @Test func aMutatedNibWithSharedObjectsReadsRewritesAndConverts() throws {
        try checkRoundTrip([UInt8](Data(base64Encoded: "BAt0eXBlZHN0cmVhbYED6IQBQISEhA5OU0lCT2JqZWN0RGF0YYEA4ISECE5TT2JqZWN0AIWShISEDk5TQ3VzdG9tT2JqZWN0KZSEAkBAhISECE5TbHRyaW5nAZSEASsKVExheWVyRGVtb4aFhoQBaQuWhISEEE5TV2luZG93VGVtcGxhdGWBAfiUhA1paWZmZmZpQEBAQEBjDgIQS4EDIIECiYJweAAAhJiYE1RyYW5zcGFyZW5jeSBMYXllcnOGhJiYCE5TV2luZG93hoSEhA9OU011dGFibGVTdHJpbmcBmJgEVmlld4aEhIQGTlNWaWV3KYSEC05TUmVzcG9uZGVyAJSShZkAhAxAQEBAZmZmZmZmZmaEhIQOTlNNdXRhYmxlQXJyYXkAhIQHTlNBcnJheQCUmQWShISEDE5TQ3VzdG9tVmlldymgkp+ZghIAAACfhKOZAIaFhYUUFIECNoECYgAAgQI2gQJikp+ShZKFkoWWhJiYClRMYXllclZpZXeGhJiYBk5TVmlld4aGkoSEhAVOU0JveCqgkp+ZggkAAACfhKOZAZKEoJKqmQCfhKOZAZKEhIQITlNTbGlkZXIAhIQJTlNDb250cm9sKaCSrZkAn4WFhYUMCoEAjhUAAIEAjhWSrZKFkoWShYQEaWNjQAIBAISEhAxOU1NsaWRlckNlbGyBAOKEhAxOU0FjdGlvbkNlbGwRhIQGTlNDZWxsQZSEAmlpggQF/wAAhARAQEBAhJ6YAIaEhIQGTlNGb250FZSZHIQFWzI4Y10GAAAAFAAAAP7/AEgAZQBsAHYAof+L/5b/nP9hhAFmDIQBYwCvAa8ArwCGhYWEAmk6AoWShZKvhAdkZGRkaWlpDwAAAAAAAIaGhoWFhQICgQC2KAAAgQC2KJKqkoWShZKFhoaFhYWBAlKBAXeBALo8AACBALo8kp+ShZKFkoWEB2ZmQEBjY2MAAISEhA9OU1RleHRGaWVsZENlbGw+tKqCBAH+AACrhJiYC0JsdXIgUmFkaXVzhoS4mSSEBVszNmNdBgAAABoAAAD+/wBMAHUAYwBpAGQAYQBHAHIAYQBuAGQAZQAArg2vAK8BrwCvBoaFhbAAhZKFkoWEA2NAQACEhIQHTlNDb2xvcgCUrwaEA0BAQISYmAZTeXN0ZW2GhJiYE3RleHRCYWNrZ3JvdW5kQ29sb3KGhL6vA4QCZmYBAYaGhL6vBre/hJiYEGNvbnRyb2xUZXh0Q29sb3KGhL6vA7gAAYaGhq0DAgCShYaShKaSn5mCCQAAAJ+Eo5kAhoWFhYECUoEBvIEAuoEAugAAgQC6gQC6kp+ShZKFkoWWhJiYEFNoYWRvd09mZnNldFZpZXeGhJiYBk5TVmlld4aGkoSEhAhOU0J1dHRvbgCxkp+ZAJ+FhYWFgQJTgQETgQC+EgAAgQC+EpKfkoWShZKFpgABAISEhAxOU0J1dHRvbkNlbGw/tKqCBAH+AACrhJiYF1VzZSB0cmFuc3BhcmVuY3kgbGF5ZXJzhoS4mSS0BgAAABoAAAD+/wBMAHUAYwBpAGQAYQBHAHIAYQBuAGQAZQAArg2vAK8BrwCvBIaFhbAAhZKFksmECXNzaWlAQEBAQIEAyBkCgkg8Uf+EmJgAhs+FhISEE05TQnV0dG9uSW1hZ2VTb3VyY2UDlJKEmJgITlNTd2l0Y2iGhoWGhpKEq5KfmYIJAAAAn4SjmQGShKCS05kAn4SjmQGShISEC05TQ29sb3JXZWxsEbGS1ZkAn4WFhYSEhAxOU011dGFibGVTZXQAhIQFTlNTZXQAlIQBSQGShJ6YF05TQ29sb3IgcGFzdGVib2FyZCB0eXBlhoYUDYEAjiAAAIEAjiCS1ZKFkoWShaYAAQCFrwCvAa8AkoS+rwGEBGZmZmaDPW4aP4M9Y3/nAQGGhoaFhYUCAoEAtjAAAIEAtjaS05KFkoWShYaGhYWFgQJSgQEngQC6SgAAgQC6SpKfkoWShZKFsgAAhLqqggQB/gAAq4SYmBZEcmFnIENvbG9yIE9udG8gU2hhcGVzhryFhbAAhZKFkoW1AL3ChtUDAgCShYaGhYWFAQmBAyCBAokAAIEDIIECiZKFkoWShZKFhoUBwQAAgQQAgQLqrwG4gQDIgQI4koWvAriDf3//7oN/f//uhpWWyZ+Wn5mW05+WxZ+W19WW1dOWqp+Wr62WraqWpZ+ZB5alhJiYBFZpZXeGlsWEmJgFVmlldzGGlpmEmJgGV2luZG93hpavhJiYCU5TU2xpZGVyMYaW14SYmAEyhpbJhJiYCU5TQnV0dG9uNIaWlYSYmAxGaWxlJ3MgT3duZXKGkoTawACGkoSjmQeShISEFE5TTmliT3V0bGV0Q29ubmVjdG9ygQDPhIQOTlNOaWJDb25uZWN0b3IRlLeVpYSYmAp0bGF5ZXJWaWV3hoaShOq3la+EmJgSc2hhZG93UmFkaXVzU2xpZGVyhoaShISEFU5TTmliQ29udHJvbENvbm5lY3RvcoEAz+u3r5WEmJgUc2hhZG93UmFkaXVzQ2hhbmdlZDqGhpKE6reVxYSYmBBzaGFkb3dPZmZzZXRWaWV3hoaShPC3yZWEmJgZdG9nZ2xlVHJhbnNwYXJlbmN5TGF5ZXJzOoaGkoTqt5XJhJiYF3RyYW5zcGFyZW5jeUxheWVyQnV0dG9uhoaShOq3ldeEmJgJY29sb3JXZWxshoaGkoWZE4QCQGnpE8XyecXtgQCbxfSBALTF+IEAusXTgQC3xdeBALnFqnrFxYEAsMWlB8WfBsWve8XVgQC4xZUBxfaBALXF74EApsWZBZmBALuZAJKEmJgQSUJDb2NvYUZyYW1ld29ya4aG")!))
    }

    /// leak-57465c4d (LeakSanitizer): an unknown-class object whose attributed string's attribute referred
    /// back to it; the cycle graph did not look into attribute runs, so the graph and its members were never
    /// freed. The graph now rewrites attribute values too.
    @Test func aCycleThroughAnAttributedStringsAttributesIsFreed() throws {
        let object = ArchivedObject(classChain: ["Holder", "NSObject"])
        object.fields = [(TypedStreamUnarchiver.versionsKey, .value(.array([0, 0]))),
                         (TypedStreamUnarchiver.typesKey, .value(.array(["@"]))),
                         ("$0", .object(ArchivedAttributedString("ab", attributes: ["owner": object])))]
        let bytes = try TypedStreamArchiver.archivedData(withRootObject: object) as [UInt8]
        object.fields = []
        weak var decoded: ArchivedObject?
        try {
            let root = try #require(try TypedStreamUnarchiver.unarchiveObject(with: bytes, registry: Self.generic) as? ArchivedObject)
            guard case .object(let body as ArchivedAttributedString)? = root["$0"] else { Issue.record("no body"); return }
            #expect(body.runs.first?.attributes["owner"] as? ArchivedObject === root)
            decoded = root
        }()
        #expect(decoded == nil)
    }

    @Test func dictionaryKeyedByUnknownObjectsWritesTheSameBytesWhateverItsHashOrder() throws {
        func key(_ name: String) -> ArchivedObject {
            ArchivedObject(classChain: ["Key", "NSObject"], fields: [("$0", .value(.string(name)))])
        }
        let names = (0..<12).map { "name\($0)" }
        var a: [AnyHashable: Any] = [:]
        for n in names { a[key(n)] = n }
        var b: [AnyHashable: Any] = [:]
        b.reserveCapacity(100)
        for n in names.reversed() { b[key(n)] = n }
        #expect(try TypedStreamArchiver.archivedData(withRootObject: a) as [UInt8] == TypedStreamArchiver.archivedData(withRootObject: b) as [UInt8])
        #expect(try KeyedArchiver.archivedData(withRootObject: a) as [UInt8] == KeyedArchiver.archivedData(withRootObject: b) as [UInt8])
    }
}
