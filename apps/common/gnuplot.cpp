#include "common/gnuplot.hpp"

#include <cstdlib>

#include "common/output_files.hpp"

namespace kktdae::apps {
namespace {

bool gnuplotAvailable() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string gnuplotQuote(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

PlotOutcome renderPlot(const std::filesystem::path& dir, const std::string& script_name,
                       const std::string& png_name, const std::string& script) {
  writeFileAtomically(dir / script_name, script);
  const std::filesystem::path png = dir / png_name;
  if (!gnuplotAvailable()) {
    return {false, "gnuplot not found: render with `cd " + dir.string() + " && gnuplot " + script_name + "`"};
  }
  // gnuplot writes the PNG itself; render to a uniquely named temporary and rename it, so that a
  // failed render leaves no half-written image and two runs into one directory never share one.
  const std::filesystem::path temporary = createTemporaryNextTo(png);
  const std::string command = "cd " + shellQuote(dir.string()) + " && gnuplot -e " +
                              shellQuote("outfile='" + temporary.filename().string() + "'") + " " +
                              shellQuote(script_name) + " >/dev/null 2>&1";
  std::error_code error;
  if (std::system(command.c_str()) != 0) {
    std::filesystem::remove(temporary, error);
    return {false, "gnuplot failed on " + (dir / script_name).string()};
  }
  std::filesystem::rename(temporary, png, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return {false, "cannot move the rendered plot to " + png.string()};
  }
  return {true, png.string()};
}

}  // namespace kktdae::apps
