/// Process exit statuses: the C standard's success and failure and the BSD `<sysexits.h>` codes the tools use.
///
/// ```swift
/// return ExitStatus.dataError   // EX_DATAERR: the input was malformed
/// ```
///
/// Mirrors `EXIT_SUCCESS` / `EXIT_FAILURE` and `EX_USAGE` ... `EX_TEMPFAIL` from `<sysexits.h>`.
package enum ExitStatus {
    /// `EXIT_SUCCESS` (0): the command did what was asked.
    package static let success: Int32 = 0
    /// `EXIT_FAILURE` (1): a plain failure, such as "not found".
    package static let failure: Int32 = 1
    /// `EX_USAGE` (64): the command line was wrong.
    package static let usage: Int32 = 64
    /// `EX_DATAERR` (65): the input data was malformed.
    package static let dataError: Int32 = 65
    /// `EX_NOINPUT` (66): an input file did not exist or could not be read.
    package static let noInput: Int32 = 66
    /// `EX_CANTCREAT` (73): an output file could not be created.
    package static let cannotCreate: Int32 = 73
    /// `EX_IOERR` (74): an error while reading or writing.
    package static let ioError: Int32 = 74
    /// `EX_TEMPFAIL` (75): a temporary failure (a lock held too long); trying again later may work.
    package static let temporaryFailure: Int32 = 75
}
