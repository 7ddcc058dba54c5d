// Dual numbers: every rule against its closed-form derivative, nesting for second derivatives,
// and Eigen matrices of duals.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <type_traits>

#include "kktdae/autodiff/dual.hpp"

using kktdae::Dual;
using kktdae::Dual1;
using kktdae::Dual2;

namespace {

// Closed-form derivatives differ from the dual ones only by rounding of a few operations.
constexpr double kTolerance = 1e-14;

/// f at x seeded with derivative 1.
template <typename F>
Dual1 seeded(F f, double x) {
  return f(Dual1(x, 1.0));
}

/// Second derivative of a scalar function by nesting: x = (x + ε₁) + (1 + 0 ε₁) ε₂.
template <typename F>
double secondDerivative(F f, double x) {
  return f(Dual2(Dual1(x, 1.0), Dual1(1.0, 0.0))).derivative.derivative;
}

}  // namespace

TEST_CASE("dual: arithmetic follows the sum, product and quotient rules", "[autodiff][dual]") {
  const Dual1 a(1.5, 2.0);
  const Dual1 b(-0.7, 0.3);
  CHECK((a + b).value == Approx(0.8));
  CHECK((a + b).derivative == Approx(2.3));
  CHECK((a - b).derivative == Approx(1.7));
  CHECK((a * b).value == Approx(-1.05));
  CHECK((a * b).derivative == Approx(2.0 * -0.7 + 1.5 * 0.3));
  CHECK((a / b).derivative == Approx((2.0 * -0.7 - 1.5 * 0.3) / (0.49)));
  CHECK((-a).derivative == -2.0);
  // Mixed with numbers: a constant has no derivative.
  CHECK((a * 3).derivative == 6.0);
  CHECK((3.0 * a).derivative == 6.0);
  CHECK((a + 1).derivative == 2.0);
  CHECK((1.0 - a).derivative == -2.0);
  CHECK((a / 4.0).derivative == 0.5);
  CHECK((3.0 / a).derivative == Approx(-3.0 * 2.0 / (1.5 * 1.5)));
  Dual1 c = a;
  c += b;
  c -= b;
  c *= b;
  c /= b;
  CHECK(c.value == Approx(a.value));
  CHECK(c.derivative == Approx(a.derivative));
}

TEST_CASE("dual: comparisons look at the value only", "[autodiff][dual]") {
  const Dual1 a(1.0, 100.0);
  const Dual1 b(2.0, -100.0);
  CHECK(a < b);
  CHECK(b > a);
  CHECK(a <= 1.0);
  CHECK(a >= 1);
  CHECK(a == Dual1(1.0, 5.0));
  CHECK(a != b);
  CHECK(0.5 < a);
  CHECK(Dual2(3.0) > 2.0);
  CHECK(kktdae::primalValue(Dual2(Dual1(3.25, 1.0), Dual1(2.0, 7.0))) == 3.25);
}

TEST_CASE("dual: elementary functions match their closed-form derivatives", "[autodiff][dual]") {
  const double x = 0.37;
  CHECK(seeded([](auto y) { return sqrt(y); }, x).derivative == Approx(0.5 / std::sqrt(x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return sin(y); }, x).derivative == Approx(std::cos(x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return cos(y); }, x).derivative == Approx(-std::sin(x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return tan(y); }, x).derivative ==
        Approx(1.0 / (std::cos(x) * std::cos(x))).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return asin(y); }, x).derivative ==
        Approx(1.0 / std::sqrt(1.0 - x * x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return acos(y); }, x).derivative ==
        Approx(-1.0 / std::sqrt(1.0 - x * x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return atan(y); }, x).derivative == Approx(1.0 / (1.0 + x * x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return exp(y); }, x).derivative == Approx(std::exp(x)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return log(y); }, x).derivative == Approx(1.0 / x).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return pow(y, 2.5); }, x).derivative ==
        Approx(2.5 * std::pow(x, 1.5)).epsilon(kTolerance));
  CHECK(seeded([](auto y) { return abs(y); }, -x).derivative == -1.0);
  CHECK(seeded([](auto y) { return abs(y); }, x).derivative == 1.0);
  // atan2 and hypot in both arguments: along y and along x.
  const double y0 = -0.8;
  CHECK(seeded([&](auto y) { return atan2(y, Dual1(x)); }, y0).derivative ==
        Approx(x / (x * x + y0 * y0)).epsilon(kTolerance));
  CHECK(seeded([&](auto z) { return atan2(Dual1(y0), z); }, x).derivative ==
        Approx(-y0 / (x * x + y0 * y0)).epsilon(kTolerance));
  CHECK(seeded([&](auto z) { return atan2(y0, z); }, x).derivative ==
        Approx(-y0 / (x * x + y0 * y0)).epsilon(kTolerance));
  CHECK(seeded([&](auto z) { return hypot(z, Dual1(y0)); }, x).derivative ==
        Approx(x / std::hypot(x, y0)).epsilon(kTolerance));
  CHECK(isfinite(Dual1(1.0, 2.0)));
  CHECK_FALSE(isfinite(Dual1(1.0, std::numeric_limits<double>::infinity())));
  CHECK(isnan(Dual1(std::nan(""), 0.0)));
  CHECK(isinf(Dual1(0.0, -std::numeric_limits<double>::infinity())));
}

TEST_CASE("dual: nesting gives exact second derivatives", "[autodiff][dual]") {
  const double x = 0.61;
  CHECK(secondDerivative([](auto y) { return sin(y); }, x) == Approx(-std::sin(x)).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return exp(2.0 * y); }, x) == Approx(4.0 * std::exp(2.0 * x)).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return sqrt(y); }, x) ==
        Approx(-0.25 * std::pow(x, -1.5)).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return y * y * y; }, x) == Approx(6.0 * x).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return 1.0 / y; }, x) == Approx(2.0 / (x * x * x)).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return atan(y); }, x) ==
        Approx(-2.0 * x / ((1.0 + x * x) * (1.0 + x * x))).epsilon(kTolerance));
  CHECK(secondDerivative([](auto y) { return log(y) * tan(y); }, x) ==
        Approx(-1.0 / (x * x) * std::tan(x) + 2.0 / (x * std::cos(x) * std::cos(x)) +
               std::log(x) * 2.0 * std::tan(x) / (std::cos(x) * std::cos(x)))
            .epsilon(1e-13));
  // Mixed second derivative ∂²f/∂x∂y of f = x² y³ by seeding x in ε₁ and y in ε₂: 6 x y².
  const double y = -1.3;
  const Dual2 xs(Dual1(x, 1.0), Dual1(0.0, 0.0));
  const Dual2 ys(Dual1(y, 0.0), Dual1(1.0, 0.0));
  CHECK((xs * xs * ys * ys * ys).derivative.derivative == Approx(6.0 * x * y * y).epsilon(kTolerance));
  // Nested duals mix with their inner dual and with plain numbers.
  const Dual2 mixed = Dual1(2.0, 1.0) * xs + 3 - xs / 2.0;
  CHECK(mixed.value.value == Approx(2.0 * x + 3.0 - x / 2.0));
}

TEST_CASE("dual: Eigen matrices of duals (NumTraits, mixed double expressions)", "[autodiff][dual]") {
  STATIC_REQUIRE(std::is_trivial_v<Dual2>);
  STATIC_REQUIRE(Eigen::NumTraits<Dual2>::RequireInitialization == 0);
  Eigen::Matrix<Dual1, 3, 1> p;
  p << Dual1(1.0, 1.0), Dual1(2.0, 0.0), Dual1(2.0, 0.0);
  const Eigen::Vector3d anchor(1.0, 0.0, 0.0);
  const Eigen::Matrix<Dual1, 3, 1> d = p - anchor;  // Dual − double
  CHECK(d.dot(d).value == Approx(8.0));
  CHECK(d.norm().value == Approx(std::sqrt(8.0)));
  CHECK(d.squaredNorm().derivative == Approx(0.0));  // moves along x where d_x = 0
  const Eigen::Matrix<Dual1, 3, 1> scaled = 2.0 * p;
  CHECK(scaled[0].derivative == 2.0);
  // d/ds |A p(s)|² with a double matrix A and p(s) = p + s e₀.
  Eigen::Matrix3d A;
  A << 1, 2, 0, 0, 1, 0, 3, 0, 1;
  const Eigen::Matrix<Dual1, 3, 1> Ap = A * p;
  const Eigen::Vector3d Ap_value = A * Eigen::Vector3d(1.0, 2.0, 2.0);
  CHECK(Ap.squaredNorm().derivative == Approx(2.0 * Ap_value.dot(A.col(0))));
  Eigen::Matrix<Dual2, Eigen::Dynamic, 1> big = Eigen::Matrix<Dual2, Eigen::Dynamic, 1>::Zero(4);
  big[2] = Dual2(Dual1(1.0, 1.0), Dual1(1.0, 0.0));
  CHECK((big.array() * big.array()).sum().derivative.derivative == 2.0);
  CHECK(big.maxCoeff().value.value == 1.0);
  CHECK(big.allFinite());
}
