#pragma once
/// @file
/// A bit-exact copy of numpy's default random generator, so that initial conditions which the
/// project's seed scripts drew in Python with `np.random.default_rng(seed)` can be drawn again in
/// C++ without shipping the numbers themselves.

#include <cstdint>

namespace kktdae {

/// The generator behind `np.random.default_rng(seed)`: SeedSequence(entropy=seed) feeding PCG64
/// (128-bit LCG with the XSL-RR output), with numpy's double and uniform conversions on top.
///
/// Any two instances built from the same seed yield the same stream as numpy does for that
/// seed, draw for draw, as long as only the members below are used in the same order as the
/// Python calls (`bit_generator.random_raw()`, `random()`, `uniform(low, high)`). Spawned
/// sequences, other distributions and other integer widths are deliberately not covered.
class NumpyPcg64 {
 public:
  /// Seeds as `np.random.default_rng(seed)` does.
  /// Throws std::invalid_argument naming the value if `seed` is negative, where numpy raises
  /// ValueError: SeedSequence accepts only non-negative entropy.
  explicit NumpyPcg64(std::int64_t seed);

  /// Seeds as `np.random.default_rng(seed)` does, for seeds up to 2**64 - 1, which the signed
  /// constructor cannot express. A named factory rather than an overload, because an int
  /// literal would convert equally well to either integer type and the call would be ambiguous.
  /// Never throws.
  static NumpyPcg64 fromUnsignedSeed(std::uint64_t seed);

  /// Advances the generator and returns the raw 64-bit output, as numpy's
  /// `bit_generator.random_raw()` does. Exposed because it is the easiest level to compare
  /// against numpy when a higher-level draw disagrees.
  std::uint64_t nextUint64();

  /// A double in [0, 1) with 53 random bits, as numpy's `Generator.random()`; consumes one
  /// 64-bit output.
  double nextDouble();

  /// A double in [low, high), as numpy's `Generator.uniform(low, high)`; consumes one 64-bit
  /// output. Throws std::invalid_argument naming the values where numpy refuses the bounds:
  /// `high - low` negative (numpy: ValueError) or not finite, NaN included (numpy:
  /// OverflowError). Nothing is consumed when it throws, as in numpy.
  double uniform(double low, double high);

 private:
  struct UnsignedSeedTag {};
  NumpyPcg64(std::uint64_t seed, UnsignedSeedTag tag);

  // The 128-bit LCG words are held as halves so that this header needs no compiler extension;
  // the arithmetic on them lives in the source file.
  std::uint64_t stateHigh_ = 0;
  std::uint64_t stateLow_ = 0;
  std::uint64_t incrementHigh_ = 0;
  std::uint64_t incrementLow_ = 0;
};

}  // namespace kktdae
