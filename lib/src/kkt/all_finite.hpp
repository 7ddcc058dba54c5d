#pragma once
// A one-pass finiteness test for contiguous double vectors and matrices (internal header).

#include <Eigen/Core>

#include <cstdint>
#include <cstring>

namespace kktdae::detail {

/// Eigen's allFinite() without its two passes (x − x, then x == x over the difference), which
/// cost more than the whole model evaluation of a double pendulum. A double is NaN or ±∞ exactly
/// when its exponent bits are all ones, and then adding one unit to the exponent field carries
/// into the sign bit; integer AND/ADD/OR vectorize with plain SSE2. x must be contiguous.
/// The carry of one double: its exponent field plus one unit, whose sign bit is set exactly when
/// x is NaN or ±∞. OR the carries of many numbers and ask carriesFinite() once: a finiteness
/// check folded into a loop that reads the numbers anyway.
inline std::uint64_t finiteCarry(double x) {
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ULL, kExponentUnit = 0x0010000000000000ULL;
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & kExponent) + kExponentUnit;
}

/// True when every number whose finiteCarry() was OR-ed into `carries` is finite.
inline bool carriesFinite(std::uint64_t carries) { return (carries >> 63) == 0; }

template <class Derived>
bool allFinite(const Eigen::DenseBase<Derived>& x) {
  const double* data = x.derived().data();
  std::uint64_t carries = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) carries |= finiteCarry(data[i]);
  return carriesFinite(carries);
}

}  // namespace kktdae::detail
