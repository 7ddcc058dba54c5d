// The names of the generalized-α option enums: what the Python bindings build their members from
// (lib/python/src/integrators_bindings.cpp), so each value needs its own name.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "kktdae/integrators/generalized_alpha_options.hpp"

using namespace kktdae;

TEST_CASE("toString(JacobianReuse): one distinct snake_case name per value, unknown past the last",
          "[integrators][generalized_alpha]") {
  const JacobianReuse values[] = {JacobianReuse::EveryIteration, JacobianReuse::EveryStep, JacobianReuse::UntilSlow};
  std::set<std::string> names;
  for (const JacobianReuse value : values) {
    const std::string name(toString(value));
    INFO(name);
    CHECK(name != "unknown");
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
    names.insert(name);
  }
  CHECK(names.size() == std::size(values));
  CHECK(toString(JacobianReuse::UntilSlow) == "until_slow");  // the label docs/python.md and the Python tests use
  CHECK(toString(static_cast<JacobianReuse>(3)) == "unknown");
}
