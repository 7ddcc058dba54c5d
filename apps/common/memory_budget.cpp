#include "common/memory_budget.hpp"

#include <CLI/CLI.hpp>

namespace kktdae::apps {

double chainRunMemory(double links, bool dense, Integrator integrator) {
  const bool ida = integrator == Integrator::IdaIndex1 || integrator == Integrator::IdaGgl;
  const bool index3 = integrator == Integrator::GeneralizedAlpha || integrator == Integrator::Hht;
  const double per_link = ida ? 10000.0 : index3 ? 6000.0 : 3000.0;
  return per_link * links + (dense ? 80.0 * links * links : 0.0);
}

std::string memoryShortfall(double estimate_bytes) {
  const AvailableMemory available = availableMemory();
  return "needs about " + formatBytes(estimate_bytes) + " of memory" +
         (available.bytes ? ", " + formatBytes(static_cast<double>(*available.bytes)) + " available (" +
                                available.source + ")"
                          : std::string()) +
         "; ask for less";
}

void requireMemory(const std::string& flags, double estimate_bytes) {
  const AvailableMemory available = availableMemory();
  if (!available.bytes || estimate_bytes <= static_cast<double>(*available.bytes)) return;
  throw CLI::ValidationError(flags, memoryShortfall(estimate_bytes));
}

}  // namespace kktdae::apps
