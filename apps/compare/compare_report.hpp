#pragma once
// What kktdae-compare prints and writes: the table, compare.csv, compare.json and the
// work-precision diagram.

#include <filesystem>
#include <string>
#include <vector>

#include "compare/compare_cli.hpp"
#include "kktdae/experiments/work_precision.hpp"

namespace kktdae::apps {

/// One comparison as run: the setup, the model's description and the library's report.
struct CompareRun {
  const CompareSetup* setup = nullptr;
  std::string model_title;  ///< e.g. "double pendulum (2 links, 1 kg, 1 m), tilt 0.1 rad"
  WorkPrecisionReport report;
};

/// The reference line(s) and one table row per run.
std::string formatTable(const CompareRun& run);

/// compare.csv: one row per run with every number (wall time in its own column).
void writeCsv(const std::filesystem::path& out, const CompareRun& run);

/// compare.json: the setup, the reference and its cross-check, and the rows.
void writeCompareJson(const std::filesystem::path& out, const CompareRun& run);

/// work_precision.gp (always) and work_precision.png (when gnuplot runs); returns the lines to
/// print.
std::vector<std::string> writePlot(const std::filesystem::path& out, const CompareRun& run);

}  // namespace kktdae::apps
