#pragma once
// The library counts warnings as data (Summary::warnings); the apps say them in one line.
#include <string>

#include "kktdae/simulate/summary.hpp"

namespace kktdae::apps {

/// "" when the run counted none, else "warnings: 12 x violation_above_threshold (first at step 40,
/// t = 0.2 s: |phi|_inf = …); …".
std::string describeWarnings(const Summary& summary);

}  // namespace kktdae::apps
