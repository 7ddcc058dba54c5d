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
template <class Derived>
bool allFinite(const Eigen::DenseBase<Derived>& x) {
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ULL, kExponentUnit = 0x0010000000000000ULL;
  const double* data = x.derived().data();
  std::uint64_t carries = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    carries |= (bits & kExponent) + kExponentUnit;
  }
  return (carries >> 63) == 0;
}

}  // namespace kktdae::detail
