#include "common/json_output.hpp"

#include <cmath>

#include "common/number_format.hpp"
#include "common/output_files.hpp"

namespace kktdae::apps {

nlohmann::json metricNumber(double value) {
  if (!std::isfinite(value)) return nullptr;
  return roundDecimals(value, 12);
}

nlohmann::json exactNumberOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

void writeJson(const std::filesystem::path& path, const nlohmann::json& document) {
  // nlohmann's objects are std::maps (sorted keys) and its doubles print as shortest round-trip
  // text, which is what Python's json module prints too.
  writeFileAtomically(path, document.dump(2) + "\n");
}

void writeJson(RunDirectory& dir, const std::string& name, const nlohmann::json& document) {
  dir.write(name, document.dump(2) + "\n");
}

}  // namespace kktdae::apps
