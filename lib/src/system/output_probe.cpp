#include "system/output_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>

#include "system/entry_summaries.hpp"

namespace kktdae::detail {
namespace {

/// The second fill: finite, so `+=` on it gives a different finite value, and not a round number
/// a model would write on purpose.
constexpr double kSecondSentinel = -271828.18284590452;
/// Padding after an output: enough for a comma initializer with extra entries or a row too many.
Eigen::Index outputPadding(Eigen::Index size) { return std::min<Eigen::Index>(size, 4096) + 16; }

bool sameDouble(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// Runs `call` on buffers filled with `first_fill` and `second_fill` and classifies each entry.
/// Scalar is double or int; `is_first` / `is_second` recognize the fills.
template <typename Scalar, typename Same, typename IsFirst, typename IsSecond, typename Finite>
std::vector<ProbeIssue> probe(Eigen::Index size, Scalar first_fill, Scalar second_fill,
                              const std::function<void(Scalar*)>& call, std::vector<Scalar>& first,
                              Same same, IsFirst is_first, IsSecond is_second, Finite finite) {
  std::vector<ProbeIssue> issues;
  const Eigen::Index total = size + outputPadding(size);
  first.assign(static_cast<std::size_t>(total), first_fill);
  std::vector<Scalar> second(static_cast<std::size_t>(total), second_fill);
  try {
    call(first.data());
    call(second.data());
  } catch (const std::exception& error) {
    issues.push_back({ProbeIssue::Kind::Threw, -1, 0.0, 0.0, error.what()});
    return issues;
  } catch (...) {
    issues.push_back({ProbeIssue::Kind::Threw, -1, 0.0, 0.0, "an exception not derived from std::exception"});
    return issues;
  }
  for (Eigen::Index i = 0; i < size; ++i) {
    const Scalar a = first[static_cast<std::size_t>(i)], b = second[static_cast<std::size_t>(i)];
    const double da = static_cast<double>(a), db = static_cast<double>(b);
    if (is_first(a) && is_second(b)) {
      issues.push_back({ProbeIssue::Kind::Unwritten, i, da, db, {}});
    } else if (!same(a, b)) {
      issues.push_back({ProbeIssue::Kind::DependsOnOutput, i, da, db, {}});
    } else if (!finite(a)) {
      issues.push_back({ProbeIssue::Kind::NonFinite, i, da, db, {}});
    }
  }
  for (Eigen::Index i = size; i < total; ++i) {
    const Scalar a = first[static_cast<std::size_t>(i)], b = second[static_cast<std::size_t>(i)];
    if (!is_first(a) || !is_second(b)) {
      issues.push_back({ProbeIssue::Kind::WritesPastEnd, i, static_cast<double>(a), static_cast<double>(b), {}});
      break;  // the first offset says it; the rest is the same mistake
    }
  }
  return issues;
}

}  // namespace

std::vector<ProbeIssue> probeOutput(Eigen::Index rows, Eigen::Index cols, Matrix& value,
                                    const std::function<void(double*)>& call) {
  std::vector<double> first;
  const auto issues = probe<double>(
      rows * cols, kNaN, kSecondSentinel, call, first, sameDouble, [](double x) { return std::isnan(x); },
      // Bitwise: a model that writes -271828.18284590452 on purpose wrote the first call too.
      [](double x) { return std::memcmp(&x, &kSecondSentinel, sizeof x) == 0; },
      [](double x) { return std::isfinite(x); });
  value = Eigen::Map<const Matrix>(first.data(), rows, cols);
  return issues;
}

std::vector<ProbeIssue> probeIndexOutput(Eigen::Index size, IndexVector& value,
                                         const std::function<void(int*)>& call) {
  constexpr int kFirst = std::numeric_limits<int>::min(), kSecond = std::numeric_limits<int>::max();
  std::vector<int> first;
  const auto issues = probe<int>(
      size, kFirst, kSecond, call, first, [](int a, int b) { return a == b; }, [](int x) { return x == kFirst; },
      [](int x) { return x == kSecond; }, [](int) { return true; });
  value = Eigen::Map<const IndexVector>(first.data(), size);
  return issues;
}

PaddedInput::PaddedInput(ConstVectorRef x, Eigen::Index padding)
    : storage_(Vector::Constant(x.size() + padding, kNaN)), size_(x.size()) {
  storage_.head(size_) = x;
}

}  // namespace kktdae::detail
