#pragma once
// Comparing a fast path's answer with the general path it replaces (test support).

#include "kktdae/core/types.hpp"

namespace kktdae::testing {

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
