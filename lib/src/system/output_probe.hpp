#pragma once
// Sentinel probes of a model's outputs, for checkModel(): call a method twice on an output filled
// with two different sentinels, with padding after it, and say which entries it left unwritten,
// which depend on what the output held, which are not finite and whether it wrote past the end.

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

/// What one probe of an output found, entry by entry; entries are numbered column-major.
struct ProbeIssue {
  enum class Kind { Threw, Unwritten, DependsOnOutput, NonFinite, WritesPastEnd };
  Kind kind;
  Eigen::Index entry = -1;  ///< linear index (column-major); for WritesPastEnd the first offset past the end
  double first = 0.0;       ///< the value after the call on the NaN-filled output
  double second = 0.0;      ///< the value after the call on the output filled with the second sentinel
  std::string message;      ///< the exception's text, for Threw
};

/// A double output of rows×cols. `call` receives a pointer to rows·cols doubles (followed by
/// padding) and must map it and call the model method. `value` receives the first call's
/// entries (NaN where unwritten); the result lists what was wrong (empty: clean).
std::vector<ProbeIssue> probeOutput(Eigen::Index rows, Eigen::Index cols, Matrix& value,
                                    const std::function<void(double*)>& call);

/// An int output of `size` entries (a sparsity pattern), likewise; the int sentinels are the
/// smallest and largest int, and an entry is unwritten when it kept both.
std::vector<ProbeIssue> probeIndexOutput(Eigen::Index size, IndexVector& value,
                                         const std::function<void(int*)>& call);

/// A copy of an input vector followed by NaN: a model that reads past the end of q or v (an
/// expression of the wrong shape in a build without Eigen's assertions) reads NaN inside the
/// allocation instead of whatever lies beyond it, so the result is deterministic and non-finite.
class PaddedInput {
 public:
  PaddedInput(ConstVectorRef x, Eigen::Index padding);
  /// The input itself, contiguous (binds to ConstVectorRef without a copy).
  Eigen::VectorBlock<const Vector> view() const { return storage_.head(size_); }
  /// Entry i of the input, writable (for finite differences on the padded copy).
  double& operator[](Eigen::Index i) { return storage_[i]; }

 private:
  Vector storage_;
  Eigen::Index size_;
};

}  // namespace kktdae::detail
