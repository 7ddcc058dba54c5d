#pragma once
/// @file
/// A forward-mode dual number: a value and one directional derivative.
///
/// A Dual<T> represents x + x' ε with ε² = 0. Evaluating any function built from the operations
/// below on x + x' ε yields f(x) + f'(x) x' ε: the derivative along the seed x' comes out exact
/// to rounding, with no step size. Nesting gives second derivatives: on Dual<Dual<double>>
/// seeded with x = (x₀ + a ε₁) + (b + 0 ε₁) ε₂, the ε₁ε₂ coefficient of f(x) is the mixed second
/// derivative aᵀ (∂²f/∂x²) b. With a = b = ẋ along a motion this is d²f/ds², which is how
/// autodiff_constraints.hpp obtains γ in one evaluation.
///
/// Why a type of our own rather than Eigen's AutoDiffScalar: it is a trivially copyable pair of
/// scalars, so buffers of it live on the stack and nothing allocates; nesting is plain
/// composition; and it was measured faster on this library's models than AutoDiffScalar with a
/// heap or a fixed-size derivative vector (docs/defining-models-ad.md has the numbers).
///
/// Eigen integration: NumTraits and ScalarBinaryOpTraits are specialized below, so
/// Eigen::Matrix<Dual<T>, …> works (sums, dot products, norms, products with double matrices).

#include <Eigen/Core>
#include <cmath>
#include <ostream>
#include <type_traits>

#include "kktdae/core/eigen_abi.hpp"

namespace kktdae {

/// A dual number value + derivative·ε (ε² = 0) over the scalar T (double, or a Dual for nested
/// second derivatives). Default construction leaves both parts uninitialized, like a double;
/// Dual<T>{} and construction from a number give a zero derivative. Arithmetic with plain
/// numbers and with T is supported directly; comparisons look at the value only.
template <typename T>
class Dual {
 public:
  /// The scalar of both parts.
  using Scalar = T;

  T value;       ///< f(x)
  T derivative;  ///< f'(x) x', the derivative along the seed

  /// Uninitialized, like a built-in number (keeps the type trivial, hence stack buffers cheap).
  Dual() = default;
  /// A constant: value `v`, derivative 0. Implicit so that numbers mix with duals in formulas.
  template <typename U, std::enable_if_t<std::is_convertible_v<const U&, T>, int> = 0>
  constexpr Dual(const U& v) : value(v), derivative(0) {}  // NOLINT(google-explicit-constructor)
  /// A value and its derivative along the seed.
  constexpr Dual(const T& v, const T& d) : value(v), derivative(d) {}

  /// @name Compound assignment: the rules of + − × ÷ below, applied in place.
  ///@{

  /// a ∘= b sets a to a ∘ b, for ∘ one of + − × ÷.
  Dual& operator+=(const Dual& b) {
    value += b.value;
    derivative += b.derivative;
    return *this;
  }
  Dual& operator-=(const Dual& b) {
    value -= b.value;
    derivative -= b.derivative;
    return *this;
  }
  Dual& operator*=(const Dual& b) { return *this = *this * b; }
  Dual& operator/=(const Dual& b) { return *this = *this / b; }
  ///@}

  /// Sign change.
  friend constexpr Dual operator-(const Dual& a) { return Dual(-a.value, -a.derivative); }
  /// Unary plus.
  friend constexpr Dual operator+(const Dual& a) { return a; }
  /// (a + b)' = a' + b'.
  friend constexpr Dual operator+(const Dual& a, const Dual& b) {
    return Dual(a.value + b.value, a.derivative + b.derivative);
  }
  /// (a − b)' = a' − b'.
  friend constexpr Dual operator-(const Dual& a, const Dual& b) {
    return Dual(a.value - b.value, a.derivative - b.derivative);
  }
  /// (a b)' = a' b + a b'.
  friend constexpr Dual operator*(const Dual& a, const Dual& b) {
    return Dual(a.value * b.value, a.derivative * b.value + a.value * b.derivative);
  }
  /// (a / b)' = (a' − (a/b) b') / b.
  friend constexpr Dual operator/(const Dual& a, const Dual& b) {
    const T quotient = a.value / b.value;
    return Dual(quotient, (a.derivative - quotient * b.derivative) / b.value);
  }

  /// @name Dual ∘ T, T the inner scalar (itself a Dual when nested), treated as a constant:
  /// (a ± c)' = a', (a c)' = a' c, (a / c)' = a' / c, (c / a)' = −(c/a) a' / a.
  ///@{
  // A constant has no derivative part, so these skip the products with it: less work per call.

  /// a ∘ c or c ∘ a for ∘ one of + − × ÷ and c an inner scalar, a constant (rules above).
  friend constexpr Dual operator+(const Dual& a, const T& c) { return Dual(a.value + c, a.derivative); }
  friend constexpr Dual operator+(const T& c, const Dual& a) { return Dual(c + a.value, a.derivative); }
  friend constexpr Dual operator-(const Dual& a, const T& c) { return Dual(a.value - c, a.derivative); }
  friend constexpr Dual operator-(const T& c, const Dual& a) { return Dual(c - a.value, -a.derivative); }
  friend constexpr Dual operator*(const Dual& a, const T& c) { return Dual(a.value * c, a.derivative * c); }
  friend constexpr Dual operator*(const T& c, const Dual& a) { return Dual(c * a.value, c * a.derivative); }
  friend constexpr Dual operator/(const Dual& a, const T& c) { return Dual(a.value / c, a.derivative / c); }
  friend constexpr Dual operator/(const T& c, const Dual& a) {
    const T quotient = c / a.value;
    return Dual(quotient, -quotient * a.derivative / a.value);
  }
  ///@}

  /// @name Dual ∘ built-in number (int, double, …), a constant: the same rules as with T.
  ///@{
  // Templates on the arithmetic type match exactly, so a nested dual times a double never meets
  // two equally good conversions (to Dual<Dual> or to its inner Dual).

  /// a ∘ c or c ∘ a for ∘ one of + − × ÷ and c a built-in number, a constant.
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator+(const Dual& a, A c) { return Dual(a.value + c, a.derivative); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator+(A c, const Dual& a) { return Dual(c + a.value, a.derivative); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator-(const Dual& a, A c) { return Dual(a.value - c, a.derivative); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator-(A c, const Dual& a) { return Dual(c - a.value, -a.derivative); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator*(const Dual& a, A c) { return Dual(a.value * c, a.derivative * c); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator*(A c, const Dual& a) { return Dual(c * a.value, c * a.derivative); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator/(const Dual& a, A c) { return Dual(a.value / c, a.derivative / c); }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr Dual operator/(A c, const Dual& a) {
    const T quotient = c / a.value;
    return Dual(quotient, -quotient * a.derivative / a.value);
  }
  ///@}

  /// @name Comparisons, by value only: a branch taken on the value is the branch differentiated.
  ///@{

  /// Compares the values of a and b (either may be a built-in number); derivatives are ignored.
  friend constexpr bool operator==(const Dual& a, const Dual& b) { return a.value == b.value; }
  friend constexpr bool operator!=(const Dual& a, const Dual& b) { return a.value != b.value; }
  friend constexpr bool operator<(const Dual& a, const Dual& b) { return a.value < b.value; }
  friend constexpr bool operator>(const Dual& a, const Dual& b) { return a.value > b.value; }
  friend constexpr bool operator<=(const Dual& a, const Dual& b) { return a.value <= b.value; }
  friend constexpr bool operator>=(const Dual& a, const Dual& b) { return a.value >= b.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator==(const Dual& a, A c) { return a.value == c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator!=(const Dual& a, A c) { return a.value != c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator<(const Dual& a, A c) { return a.value < c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator>(const Dual& a, A c) { return a.value > c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator<=(const Dual& a, A c) { return a.value <= c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator>=(const Dual& a, A c) { return a.value >= c; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator==(A c, const Dual& a) { return c == a.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator!=(A c, const Dual& a) { return c != a.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator<(A c, const Dual& a) { return c < a.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator>(A c, const Dual& a) { return c > a.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator<=(A c, const Dual& a) { return c <= a.value; }
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend constexpr bool operator>=(A c, const Dual& a) { return c >= a.value; }
  ///@}

  // --- elementary functions: f(a + a'ε) = f(a) + f'(a) a' ε ----------------------------------
  // Hidden friends: found by argument-dependent lookup on a Dual argument only, so they never
  // hide <cmath> from code in namespace kktdae that calls sqrt or abs on a double. Each calls
  // the inner scalar's function unqualified after `using std::…`: it recurses through nested
  // duals and ends in <cmath> for double.

  /// √a, derivative a' / (2√a) (infinite at a = 0, as the true derivative).
  friend Dual sqrt(const Dual& a) {
    using std::sqrt;
    const T root = sqrt(a.value);
    return Dual(root, a.derivative / (2.0 * root));
  }
  /// sin a, derivative cos(a) a'.
  friend Dual sin(const Dual& a) {
    using std::cos;
    using std::sin;
    return Dual(sin(a.value), cos(a.value) * a.derivative);
  }
  /// cos a, derivative −sin(a) a'.
  friend Dual cos(const Dual& a) {
    using std::cos;
    using std::sin;
    return Dual(cos(a.value), -sin(a.value) * a.derivative);
  }
  /// tan a, derivative (1 + tan² a) a'.
  friend Dual tan(const Dual& a) {
    using std::tan;
    const T tangent = tan(a.value);
    return Dual(tangent, (1.0 + tangent * tangent) * a.derivative);
  }
  /// asin a (|a| ≤ 1), derivative a' / √(1 − a²).
  friend Dual asin(const Dual& a) {
    using std::asin;
    using std::sqrt;
    return Dual(asin(a.value), a.derivative / sqrt(1.0 - a.value * a.value));
  }
  /// acos a (|a| ≤ 1), derivative −a' / √(1 − a²).
  friend Dual acos(const Dual& a) {
    using std::acos;
    using std::sqrt;
    return Dual(acos(a.value), -a.derivative / sqrt(1.0 - a.value * a.value));
  }
  /// atan a, derivative a' / (1 + a²).
  friend Dual atan(const Dual& a) {
    using std::atan;
    return Dual(atan(a.value), a.derivative / (1.0 + a.value * a.value));
  }
  /// eᵃ, derivative eᵃ a'.
  friend Dual exp(const Dual& a) {
    using std::exp;
    const T e = exp(a.value);
    return Dual(e, e * a.derivative);
  }
  /// ln a (a > 0), derivative a' / a.
  friend Dual log(const Dual& a) {
    using std::log;
    return Dual(log(a.value), a.derivative / a.value);
  }
  /// aᵖ for a constant exponent p, derivative p aᵖ⁻¹ a'.
  friend Dual pow(const Dual& a, double p) {
    using std::pow;
    return Dual(pow(a.value, p), p * pow(a.value, p - 1.0) * a.derivative);
  }
  /// |a|, derivative sign(a) a' (taken as +a' at a = 0).
  friend Dual abs(const Dual& a) { return a.value < 0.0 ? -a : a; }
  /// atan2(y, x), derivative (x y' − y x') / (x² + y²) (undefined at the origin: NaN there).
  friend Dual atan2(const Dual& y, const Dual& x) {
    using std::atan2;
    const T radius_squared = x.value * x.value + y.value * y.value;
    return Dual(atan2(y.value, x.value), (x.value * y.derivative - y.value * x.derivative) / radius_squared);
  }
  /// atan2(y, x) with a constant x.
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend Dual atan2(const Dual& y, A x) { return atan2(y, Dual(x)); }
  /// atan2(y, x) with a constant y.
  template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  friend Dual atan2(A y, const Dual& x) { return atan2(Dual(y), x); }
  /// √(a² + b²) without overflow, derivative (a a' + b b') / √(a² + b²).
  friend Dual hypot(const Dual& a, const Dual& b) {
    using std::hypot;
    const T length = hypot(a.value, b.value);
    return Dual(length, (a.value * a.derivative + b.value * b.derivative) / length);
  }
  /// True when every part (value and derivatives, recursively) is finite.
  friend bool isfinite(const Dual& a) {
    using std::isfinite;
    return isfinite(a.value) && isfinite(a.derivative);
  }
  /// True when any part is NaN.
  friend bool isnan(const Dual& a) {
    using std::isnan;
    return isnan(a.value) || isnan(a.derivative);
  }
  /// True when any part is infinite (and none is NaN).
  friend bool isinf(const Dual& a) { return !isfinite(a) && !isnan(a); }

  /// Prints "value + derivative·ε".
  friend std::ostream& operator<<(std::ostream& out, const Dual& a) {
    return out << a.value << " + " << a.derivative << "ε";
  }
};

/// First-order dual over double: one directional derivative (J columns, ∂φ/∂t).
using Dual1 = Dual<double>;
/// Second-order (nested) dual: one mixed second derivative (γ, M entries, h).
using Dual2 = Dual<Dual<double>>;

/// The innermost double of a number, dual or not (drops every derivative part).
inline constexpr double primalValue(double x) { return x; }
/// The innermost double of a dual: primalValue(x.value), recursively.
template <typename T>
constexpr double primalValue(const Dual<T>& x) {
  return primalValue(x.value);
}

static_assert(std::is_trivially_copyable_v<Dual<Dual<double>>> && std::is_trivial_v<Dual<Dual<double>>>,
              "Dual must stay trivial: Eigen treats it like a plain number (RequireInitialization = 0)");

}  // namespace kktdae

namespace Eigen {

/// Eigen's description of a dual scalar: a real, signed, non-integer number whose epsilon and
/// precision are those of the innermost double.
template <typename T>
struct NumTraits<kktdae::Dual<T>> : GenericNumTraits<kktdae::Dual<T>> {
  using Real = kktdae::Dual<T>;                    ///< A dual is real: its own real part type.
  using NonInteger = kktdae::Dual<T>;              ///< Not an integer type: itself.
  using Nested = kktdae::Dual<T>;                  ///< Held by value in expressions (it is trivial).
  using Literal = typename NumTraits<T>::Literal;  ///< Literals are the innermost scalar's (double).
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 0,  // trivial type (static_assert above)
    ReadCost = 2 * NumTraits<T>::ReadCost,
    AddCost = 2 * NumTraits<T>::AddCost,
    MulCost = 3 * NumTraits<T>::MulCost + NumTraits<T>::AddCost,
  };
  /// @name Limits and precision: the inner scalar's, as constants (zero derivative).
  ///@{

  /// The inner scalar's value of the same limit, as a constant dual.
  static inline Real epsilon() { return Real(NumTraits<T>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<T>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<T>::highest()); }
  static inline Real lowest() { return Real(NumTraits<T>::lowest()); }
  static inline Real infinity() { return Real(NumTraits<T>::infinity()); }
  static inline Real quiet_NaN() { return Real(NumTraits<T>::quiet_NaN()); }
  static inline int digits10() { return NumTraits<T>::digits10(); }
  static inline int digits() { return NumTraits<T>::digits(); }
  ///@}
};

/// Dual ∘ double in Eigen expressions (e.g. a Dual vector minus a double vector) gives a Dual.
template <typename T, typename BinaryOp>
struct ScalarBinaryOpTraits<kktdae::Dual<T>, double, BinaryOp> {
  using ReturnType = kktdae::Dual<T>;  ///< The result's scalar.
};
/// double ∘ Dual gives a Dual.
template <typename T, typename BinaryOp>
struct ScalarBinaryOpTraits<double, kktdae::Dual<T>, BinaryOp> {
  using ReturnType = kktdae::Dual<T>;  ///< The result's scalar.
};
/// Nested dual ∘ its inner dual gives the nested dual.
template <typename T, typename BinaryOp>
struct ScalarBinaryOpTraits<kktdae::Dual<kktdae::Dual<T>>, kktdae::Dual<T>, BinaryOp> {
  using ReturnType = kktdae::Dual<kktdae::Dual<T>>;  ///< The result's scalar.
};
/// Inner dual ∘ nested dual gives the nested dual.
template <typename T, typename BinaryOp>
struct ScalarBinaryOpTraits<kktdae::Dual<T>, kktdae::Dual<kktdae::Dual<T>>, BinaryOp> {
  using ReturnType = kktdae::Dual<kktdae::Dual<T>>;  ///< The result's scalar.
};

}  // namespace Eigen
