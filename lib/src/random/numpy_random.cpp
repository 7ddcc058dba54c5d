#include "kktdae/random/numpy_random.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

__extension__ typedef unsigned __int128 Uint128;

// numpy's SeedSequence hashmix constants; any change breaks the match with Python.
constexpr std::uint32_t kInitA = 0x43b0d7e5U;
constexpr std::uint32_t kMultA = 0x931e8875U;
constexpr std::uint32_t kInitB = 0x8b51f9ddU;
constexpr std::uint32_t kMultB = 0x58f38dedU;
constexpr std::uint32_t kMixMultL = 0xca01f9ddU;
constexpr std::uint32_t kMixMultR = 0x4973f715U;
constexpr unsigned kXShift = 16U;
constexpr std::size_t kPoolSize = 4;

// PCG's default 128-bit LCG multiplier, which numpy's PCG64 uses.
constexpr Uint128 kPcgMultiplier =
    (static_cast<Uint128>(2549297995355413924ULL) << 64U) + 4865540595714422341ULL;

using Pool = std::array<std::uint32_t, kPoolSize>;

// The hash constant is threaded through every call, in call order, exactly as numpy's
// mix_entropy does; reordering the calls below would change the pool.
std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hashConst) {
  value ^= hashConst;
  hashConst *= kMultA;
  value *= hashConst;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

// Python turns an int into 32-bit words, least significant first, with no trailing zero words
// except that 0 itself is one word.
std::vector<std::uint32_t> entropyWords(std::uint64_t seed) {
  std::vector<std::uint32_t> words{static_cast<std::uint32_t>(seed)};
  if ((seed >> 32U) != 0U) {
    words.push_back(static_cast<std::uint32_t>(seed >> 32U));
  }
  return words;
}

Pool mixEntropy(const std::vector<std::uint32_t>& entropy) {
  std::uint32_t hashConst = kInitA;
  Pool pool{};
  for (std::size_t i = 0; i < kPoolSize; ++i) {
    pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0U, hashConst);
  }
  for (std::size_t src = 0; src < kPoolSize; ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) {
        pool[dst] = mix(pool[dst], hashmix(pool[src], hashConst));
      }
    }
  }
  // Entropy longer than the pool is folded in afterwards; a 64-bit seed never gets here, but
  // keeping the loop keeps this a faithful SeedSequence rather than a special case.
  for (std::size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
      pool[dst] = mix(pool[dst], hashmix(entropy[src], hashConst));
    }
  }
  return pool;
}

// SeedSequence.generate_state(n, np.uint64): 2n 32-bit words cycled out of the pool, then read
// pairwise as little-endian 64-bit words (numpy reinterprets the uint32 array in place).
template <std::size_t N>
std::array<std::uint64_t, N> generateState64(const Pool& pool) {
  std::array<std::uint32_t, 2 * N> words{};
  std::uint32_t hashConst = kInitB;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint32_t value = pool[i % kPoolSize];
    value ^= hashConst;
    hashConst *= kMultB;
    value *= hashConst;
    value ^= value >> kXShift;
    words[i] = value;
  }
  std::array<std::uint64_t, N> state{};
  for (std::size_t i = 0; i < N; ++i) {
    state[i] = static_cast<std::uint64_t>(words[2 * i]) |
               (static_cast<std::uint64_t>(words[2 * i + 1]) << 32U);
  }
  return state;
}

Uint128 join(std::uint64_t high, std::uint64_t low) {
  return (static_cast<Uint128>(high) << 64U) | low;
}

std::uint64_t highHalf(Uint128 value) { return static_cast<std::uint64_t>(value >> 64U); }

std::uint64_t lowHalf(Uint128 value) { return static_cast<std::uint64_t>(value); }

std::uint64_t rotateRight(std::uint64_t value, unsigned shift) {
  shift &= 63U;
  return shift == 0U ? value : (value >> shift) | (value << (64U - shift));
}

// Numpy rejects negative entropy instead of wrapping it; silently reinterpreting -1 as 2**64 - 1
// would seed a stream that no Python script can reproduce.
std::uint64_t nonNegativeSeed(std::int64_t seed) {
  if (seed < 0) {
    throwInvalid("numpy seed", "must be non-negative, got " + std::to_string(seed));
  }
  return static_cast<std::uint64_t>(seed);
}

}  // namespace

NumpyPcg64::NumpyPcg64(std::int64_t seed)
    : NumpyPcg64(nonNegativeSeed(seed), UnsignedSeedTag{}) {}

NumpyPcg64 NumpyPcg64::fromUnsignedSeed(std::uint64_t seed) {
  return NumpyPcg64(seed, UnsignedSeedTag{});
}

NumpyPcg64::NumpyPcg64(std::uint64_t seed, UnsignedSeedTag /*tag*/) {
  const std::array<std::uint64_t, 4> words = generateState64<4>(mixEntropy(entropyWords(seed)));
  // numpy hands PCG64 the first two words as (high, low) of the initial state and the next two
  // as (high, low) of the stream selector, then follows PCG's srandom: the increment must be
  // odd, and the state is stepped once before and once after adding the initial state.
  const Uint128 initState = join(words[0], words[1]);
  const Uint128 initSeq = join(words[2], words[3]);
  const Uint128 increment = (initSeq << 1U) | 1U;
  Uint128 state = 0;
  state = state * kPcgMultiplier + increment;
  state += initState;
  state = state * kPcgMultiplier + increment;

  stateHigh_ = highHalf(state);
  stateLow_ = lowHalf(state);
  incrementHigh_ = highHalf(increment);
  incrementLow_ = lowHalf(increment);
}

std::uint64_t NumpyPcg64::nextUint64() {
  // PCG64 steps first and then outputs from the new state (XSL-RR: xor the halves, rotate by
  // the top six bits).
  const Uint128 state =
      join(stateHigh_, stateLow_) * kPcgMultiplier + join(incrementHigh_, incrementLow_);
  stateHigh_ = highHalf(state);
  stateLow_ = lowHalf(state);
  return rotateRight(stateHigh_ ^ stateLow_, static_cast<unsigned>(state >> 122U));
}

double NumpyPcg64::nextDouble() {
  // The top 53 bits scaled by 2^-53, so the result is exact and never reaches 1.
  return static_cast<double>(nextUint64() >> 11U) * (1.0 / 9007199254740992.0);
}

double NumpyPcg64::uniform(double low, double high) {
  const double range = high - low;
  if (!std::isfinite(range)) {
    throwInvalid("numpy uniform", "high - low must be finite, got low " + formatDouble(low) +
                                      ", high " + formatDouble(high));
  }
  if (range < 0.0) {
    throwInvalid("numpy uniform", "high must be >= low, got low " + formatDouble(low) +
                                      ", high " + formatDouble(high));
  }
  // Same operation order as numpy (low + range * u), which is what makes it bit-identical.
  return low + range * nextDouble();
}

}  // namespace kktdae
