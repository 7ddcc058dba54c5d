#pragma once
// kktdae-errdyn --trajectory: the predicted-vs-measured limit table and its plots, and the soft
// constraints' decay table (docs/baumgarte.md §5–§7).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kktdae/experiments/limit_comparison.hpp"
#include "kktdae/experiments/soft_decay_check.hpp"

namespace kktdae::apps {

/// Writes limits.csv and limits_<integrator>.gp/.png (limit against dt, predicted dashed and
/// measured solid, per model); returns the rows as JSON and appends what to print to `lines`.
nlohmann::json writeLimitComparison(const std::filesystem::path& dir, const std::vector<LimitComparisonRow>& rows,
                                    std::vector<std::string>& lines);

/// One soft-constraint case of the table: a name and its check.
struct SoftDecayRow {
  std::string name;
  SoftConstraint soft;
  SoftDecayCheck check;
};

/// Writes soft_decay.csv; returns the rows as JSON and appends what to print to `lines`.
nlohmann::json writeSoftDecayTable(const std::filesystem::path& dir, const std::vector<SoftDecayRow>& rows,
                                   std::vector<std::string>& lines);

}  // namespace kktdae::apps
