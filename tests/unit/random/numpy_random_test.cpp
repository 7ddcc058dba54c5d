// Expected values are numpy 1.24.2's own outputs (Debian python3-numpy), compared with ==:
// anything short of bit-identical would fail to reproduce the seed scripts' initial conditions.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kktdae/random/numpy_random.hpp"

using kktdae::NumpyPcg64;

TEST_CASE("numpy_random: first uniform(-0.05, 0.05) matches default_rng(seed)") {
  struct Case {
    std::int64_t seed;
    double expected;
  };
  // 4294967301 = 2**32 + 5 needs two entropy words, exercising the word splitting.
  const std::vector<Case> cases = {
      {0, 0.013696168732145436},          {1, 0.0011821624700256717},
      {2, -0.02383878657506836},          {42, 0.027395604855596334},
      {4294967301LL, 0.027420418037388122},
  };
  for (const Case& c : cases) {
    INFO("seed " << c.seed);
    NumpyPcg64 rng(c.seed);
    CHECK(rng.uniform(-0.05, 0.05) == c.expected);
  }
}

TEST_CASE("numpy_random: raw 64-bit outputs match bit_generator.random_raw()") {
  SECTION("seed 0") {
    NumpyPcg64 rng(0);
    CHECK(rng.nextUint64() == 11749869230777074271ULL);
    CHECK(rng.nextUint64() == 4976686463289251617ULL);
    CHECK(rng.nextUint64() == 755828109848996024ULL);
  }
  SECTION("seed 7") {
    NumpyPcg64 rng(7);
    CHECK(rng.nextUint64() == 11530976094092348043ULL);
    CHECK(rng.nextUint64() == 16550673365885938325ULL);
    CHECK(rng.nextUint64() == 14308875409591826786ULL);
  }
  SECTION("seed 2**32 (low word zero, high word one)") {
    NumpyPcg64 rng(4294967296LL);
    CHECK(rng.nextUint64() == 16412783775159424549ULL);
    CHECK(rng.nextUint64() == 10277383025879800780ULL);
  }
}

TEST_CASE("numpy_random: stream of random() draws matches numpy") {
  SECTION("seed 12345, five draws") {
    NumpyPcg64 rng(12345);
    CHECK(rng.nextDouble() == 0.22733602246716966);
    CHECK(rng.nextDouble() == 0.31675833970975287);
    CHECK(rng.nextDouble() == 0.7973654573327341);
    CHECK(rng.nextDouble() == 0.6762546707509746);
    CHECK(rng.nextDouble() == 0.391109550601909);
  }
  SECTION("seed 2**63 - 1") {
    NumpyPcg64 rng(std::numeric_limits<std::int64_t>::max());
    CHECK(rng.nextDouble() == 0.1754661243027813);
    CHECK(rng.nextDouble() == 0.4699286514015091);
    CHECK(rng.nextDouble() == 0.8250374441530688);
  }
  SECTION("seeds at the one-word boundary") {
    CHECK(NumpyPcg64(4294967295LL).nextDouble() == 0.2519435680449965);
    CHECK(NumpyPcg64(4294967296LL).nextDouble() == 0.8897387912781343);
  }
  SECTION("seed 5, the 1000th draw") {
    NumpyPcg64 rng(5);
    for (int i = 0; i < 999; ++i) {
      rng.nextDouble();
    }
    CHECK(rng.nextDouble() == 0.6851220373604644);
  }
}

TEST_CASE("numpy_random: fromUnsignedSeed reaches seeds above 2**63 - 1") {
  NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(std::numeric_limits<std::uint64_t>::max());
  CHECK(rng.nextDouble() == 0.6800266789616931);
  CHECK(rng.nextDouble() == 0.8453117585624743);
  CHECK(rng.nextDouble() == 0.007403081599260064);

  NumpyPcg64 signedRng(42);
  NumpyPcg64 unsignedRng = NumpyPcg64::fromUnsignedSeed(42U);
  for (int i = 0; i < 10; ++i) {
    CHECK(signedRng.nextUint64() == unsignedRng.nextUint64());
  }
}

TEST_CASE("numpy_random: a stream of uniform draws matches numpy") {
  NumpyPcg64 rng(12345);
  CHECK(rng.uniform(-1.5, 2.5) == -0.5906559101313213);
  CHECK(rng.uniform(-1.5, 2.5) == -0.23296664116098853);
  CHECK(rng.uniform(-1.5, 2.5) == 1.6894618293309365);
  CHECK(rng.uniform(-1.5, 2.5) == 1.2050186830038982);
}

TEST_CASE("numpy_random: negative seed throws naming the value") {
  CHECK_THROWS_AS(NumpyPcg64(-1), std::invalid_argument);
  CHECK_THROWS_WITH(NumpyPcg64(-7), Catch::Contains("-7"));
  CHECK_THROWS_WITH(NumpyPcg64(std::numeric_limits<std::int64_t>::min()),
                    Catch::Contains("-9223372036854775808"));
}

TEST_CASE("numpy_random: uniform rejects the bounds numpy rejects, without consuming a draw") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NumpyPcg64 rng(3);
  CHECK_THROWS_AS(rng.uniform(1.0, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(rng.uniform(0.0, inf), std::invalid_argument);
  CHECK_THROWS_AS(rng.uniform(-inf, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(rng.uniform(nan, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(rng.uniform(1.0, nan), std::invalid_argument);
  CHECK_THROWS_AS(rng.uniform(-1e308, 1e308), std::invalid_argument);
  CHECK_THROWS_WITH(rng.uniform(1.0, -1.0), Catch::Contains("low 1") && Catch::Contains("high -1"));
  // numpy: default_rng(3).random() is the first draw, so nothing above may have advanced it.
  CHECK(rng.nextDouble() == 0.08564916714362436);

  // An empty range is allowed and still consumes a draw, as in numpy:
  // r = default_rng(3); r.uniform(2.0, 2.0); r.random() -> 0.2368105065960997.
  NumpyPcg64 fresh(3);
  CHECK(fresh.uniform(2.0, 2.0) == 2.0);
  CHECK(fresh.nextDouble() == 0.2368105065960997);
}
