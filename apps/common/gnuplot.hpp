#pragma once
// Plots through gnuplot: the app writes a .gp script next to its data; when gnuplot is on the
// PATH the script is rendered to PNG, otherwise the user is told how to render it.

#include <string>
#include <vector>

#include "common/run_directory.hpp"

namespace kktdae::apps {

/// How a render ended. Only Rendered publishes the PNG; every other outcome removes the
/// temporary gnuplot wrote into.
enum class PlotStatus {
  Rendered,        ///< gnuplot exited 0 and wrote a whole PNG, now published
  GnuplotMissing,  ///< no gnuplot on the PATH: the script is there to render by hand
  NothingToDraw,   ///< the app had no point to plot and wrote no script (renderPlot never says so)
  Failed,          ///< gnuplot failed, or exited 0 without a whole PNG (a full disk)
  Interrupted,     ///< SIGINT/SIGTERM arrived before or while gnuplot ran (forwarded to it)
};

struct PlotOutcome {
  PlotStatus status = PlotStatus::Failed;
  std::string note;  ///< the PNG's path when rendered, else what happened, for the app to print
  /// "plot: <path>" or "plot not rendered: <why>".
  std::string line() const;
};

/// Complete for a rendered plot and for a missing gnuplot (the script is published to render by
/// hand), Failed or Interrupted otherwise.
RunOutcome outcomeOf(const PlotOutcome& plot);

/// A run's plots together: the worst of their outcomes, and the first failed plot's note (the
/// manifest's message).
struct PlotsOutcome {
  RunOutcome outcome = RunOutcome::Complete;
  std::string message;
};
PlotsOutcome outcomeOf(const std::vector<PlotOutcome>& plots);

/// Writes `script` to dir/script_name (published), then, unless a signal has arrived, runs
/// gnuplot in the directory with posix_spawn and waits for it. A SIGINT or SIGTERM that reaches
/// the app while gnuplot runs is forwarded to gnuplot, which is killed if it has not ended 2 s
/// later. The script must start its output with
/// `set output outfile` after `if (!exists("outfile")) outfile = '<png_name>'`: run by hand it
/// writes png_name, run here it writes a temporary name that is checked (pngDefect) and renamed
/// over png_name only when gnuplot succeeded. Throws std::runtime_error if the script cannot be
/// written.
PlotOutcome renderPlot(RunDirectory& dir, const std::string& script_name, const std::string& png_name,
                       const std::string& script);

/// Quotes a string for a gnuplot script.
std::string gnuplotQuote(const std::string& text);

}  // namespace kktdae::apps
