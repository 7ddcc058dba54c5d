#pragma once
// Runs an app binary the way a user's shell does and reads what it wrote.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace kktdae::testing {

struct AppRun {
  int exit_code = -1;  ///< the process's exit status; -1 if it died from a signal
  std::string output;  ///< stdout and stderr together
};

inline AppRun runApp(const std::string& binary, const std::string& arguments) {
  AppRun run;
  const std::string command = "'" + binary + "' " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

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
