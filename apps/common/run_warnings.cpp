#include "common/run_warnings.hpp"

#include "common/number_format.hpp"

namespace kktdae::apps {

std::string describeWarnings(const Summary& summary) {
  std::string text;
  for (const RunWarning& warning : summary.warnings) {
    text += (text.empty() ? "warnings: " : "; ") + std::to_string(warning.count) + " x " +
            std::string(toString(warning.kind)) + " (first at step " + std::to_string(warning.first_step) +
            ", t = " + shortest(warning.first_time) + " s: " + warning.first_detail + ")";
  }
  return text;
}

}  // namespace kktdae::apps
