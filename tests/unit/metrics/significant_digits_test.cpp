// The Test Set's scd and mescd against their definitions, worked by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/metrics/significant_digits.hpp"

using namespace kktdae;
using Catch::Contains;

TEST_CASE("significant digits: scd is the worst component's relative error, mescd floors it with atol/rtol",
          "[metrics][testset]") {
  Vector ref(3), y(3);
  ref << 100.0, 1e-3, -2.0;
  y << 100.01, 1.1e-3, -2.0;  // relative errors 1e-4, 1e-1, 0
  CHECK(significantCorrectDigits(y, ref) == Approx(1.0).epsilon(1e-12));
  // Floor atol/rtol = 1: the small component's 1e-4 absolute error counts as 1e-4 / (1 + 1e-3),
  // the large one's as 1e-2 / 101.
  const double expected = -std::log10(std::max(1e-4 / (1.0 + 1e-3), 1e-2 / 101.0));
  CHECK(mixedErrorSignificantDigits(y, ref, 1e-6, 1e-6) == Approx(expected).epsilon(1e-12));
  // A vanishing floor gives back scd.
  CHECK(mixedErrorSignificantDigits(y, ref, 1.0, 1e-300) == Approx(1.0).epsilon(1e-12));
  CHECK(std::isinf(significantCorrectDigits(ref, ref)));
}

TEST_CASE("significant digits: bad input is refused with the argument named", "[metrics][testset]") {
  Vector ref(2), y(3), zero(2);
  ref << 1.0, 2.0;
  y << 1.0, 2.0, 3.0;
  zero << 1.0, 0.0;
  CHECK_THROWS_WITH(significantCorrectDigits(y, ref), Contains("y") && Contains("size 3"));
  CHECK_THROWS_WITH(significantCorrectDigits(ref, zero), Contains("entry 1 is 0"));
  CHECK_THROWS_WITH(mixedErrorSignificantDigits(ref, ref, 0.0, 1.0), Contains("rtol"));
  Vector nan_y = ref;
  nan_y[0] = std::nan("");
  CHECK_THROWS_WITH(significantCorrectDigits(nan_y, ref), Contains("not finite"));
}
