#pragma once
// Comparing a fast path's answer with the general path it replaces (test support).

#include <cstddef>
#include <cstring>

#include "kktdae/core/types.hpp"

namespace kktdae::testing {

/// The same bit pattern (signed zeros and NaN payloads included), never handing memcmp the null
/// data of an empty vector (UBSan's nonnull argument).
inline bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool sameBits(const Vector& a, const Vector& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}
inline bool sameBits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

/// Bit for bit where the arithmetic is IEEE double in SSE2 registers with no fused multiply-add
/// (x86-64 without -march=native, the library's build); elsewhere to the last few bits.
inline bool sameToTheBit(const Vector& a, const Vector& b) {
#if defined(__x86_64__) && !defined(__FMA__)
  return a.size() == b.size() && (a.array() == b.array()).all();
#else
  return a.size() == b.size() && (a - b).norm() <= 1e-14 * (1.0 + a.norm());
#endif
}

}  // namespace kktdae::testing
