#pragma once
// Runs an app binary the way a user's shell does and reads what it wrote.

#include <sys/wait.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace kktdae::testing {

/// The apps under test, as tests/CMakeLists.txt passes their paths in.
inline const std::string kConstraintsApp = KKTDAE_CONSTRAINTS_APP;
inline const std::string kCircleApp = KKTDAE_CIRCLE_APP;
inline const std::string kCompareApp = KKTDAE_COMPARE_APP;
inline const std::string kErrdynApp = KKTDAE_ERRDYN_APP;
inline const std::string kTutorialApp = KKTDAE_TUTORIAL_APP;
inline const std::string kSweepApp = KKTDAE_SWEEP_APP;
inline const std::string kTestsetApp = KKTDAE_TESTSET_APP;
inline const std::string kContactApp = KKTDAE_CONTACT_APP;
inline const std::string kSensitivityApp = KKTDAE_SENSITIVITY_APP;

struct AppRun {
  /// The exit status the shell reports: an app killed by signal N shows as 128 + N (the shell
  /// survives it); -1 if the shell itself did not exit normally.
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
  /// A crash (a signal such as SIGSEGV or SIGABRT) rather than an exit the app chose.
  bool crashed() const { return exit_code < 0 || exit_code >= 128; }
};

/// Runs `command_line` through popen's shell and collects everything it prints.
inline AppRun runCommandLine(const std::string& command_line) {
  AppRun run;
  FILE* pipe = popen(command_line.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

inline AppRun runApp(const std::string& binary, const std::string& arguments) {
  return runCommandLine("'" + binary + "' " + arguments + " 2>&1");
}

/// Runs a shell command list (e.g. two apps started with & and a `wait`), stderr included.
inline AppRun runShell(const std::string& commands) { return runCommandLine("(" + commands + ") 2>&1"); }

/// Whether gnuplot is on the PATH: the apps render PNGs only then.
inline bool gnuplotOnPath() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

inline nlohmann::json readJson(const std::filesystem::path& path) { return nlohmann::json::parse(readFile(path)); }

/// A fresh, empty directory for one test's outputs.
inline std::filesystem::path freshOutputDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(KKTDAE_APP_TEST_OUTPUT_DIR) / name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace kktdae::testing
