#pragma once
// Plots through gnuplot: the app writes a .gp script next to its data; when gnuplot is on the
// PATH the script is rendered to PNG, otherwise the user is told how to render it.

#include <filesystem>
#include <string>

namespace kktdae::apps {

struct PlotOutcome {
  bool rendered = false;
  std::string note;  ///< what happened, for the app to print
};

/// Writes `script` to `dir/script_name` atomically, then runs gnuplot in `dir` when available.
/// The script must start its output with `set output outfile` after
/// `if (!exists("outfile")) outfile = '<png_name>'`: run by hand it writes png_name, run here it
/// writes a temporary name that is renamed once gnuplot succeeded.
PlotOutcome renderPlot(const std::filesystem::path& dir, const std::string& script_name,
                       const std::string& png_name, const std::string& script);

/// Quotes a string for a gnuplot script.
std::string gnuplotQuote(const std::string& text);

}  // namespace kktdae::apps
