#pragma once
// The exit codes every app uses (docs/apps.md, "Output directories and exit codes"), and the one place that maps a CLI11
// parse error to the usage code.

#include <CLI/CLI.hpp>

namespace kktdae::apps {

/// The run finished and every file it writes is published (manifest status "complete").
constexpr int kExitOk = 0;
/// The run itself failed (a numerical failure, a failed check, a file that could not be written);
/// the files for what it recorded are published and the manifest says "failed".
constexpr int kExitFailed = 1;
/// A bad flag, a run too large for the memory available, or an unusable --out: nothing ran.
constexpr int kExitUsage = 2;
/// SIGINT and SIGTERM end a run with 128 + the signal's number, as a shell reports a process the
/// signal killed (130 and 143), after publishing what was recorded (manifest "interrupted").
constexpr int kExitSigint = 130;
constexpr int kExitSigterm = 143;

/// Prints CLI11's message for `error` and returns the app's exit code: 0 for --help, otherwise
/// kExitUsage (CLI11's own codes, 105, 106, 109…, differ by kind of mistake; a script only needs
/// to know it was a usage error).
inline int usageExit(const CLI::App& app, const CLI::ParseError& error) {
  const int code = app.exit(error);
  return code == 0 ? kExitOk : kExitUsage;
}

}  // namespace kktdae::apps
