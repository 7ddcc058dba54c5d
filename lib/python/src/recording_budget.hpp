#pragma once
// How the recording simulate() fills grows. Reserving a row for every step up front made a run of
// 1e9 steps fail at once (std::bad_alloc) even when an event would stop it after ten; growing
// without a bound would, on Linux, let the kernel kill the interpreter once memory runs out. So:
// the whole run is reserved up front when it fits in kUpFrontBytes (seed 000's 4001 states are
// 0.5 MB), else kUpFrontBytes' worth; then the buffers double as the run fills them (never past
// the run's own count), each growth first checked against the memory available
// (kktdae/core/available_memory.hpp, what the apps' memory estimates compare with). A growth that
// does not fit ends the run (RecordingTooLarge, from the observer), and simulate() raises
// MemoryError with refusal(), which says what to do instead.
#include <stdexcept>
#include <string>

#include "kktdae/metrics/trajectory_recording.hpp"

namespace kktdae::python {

/// Thrown inside the run when the recording may not grow (what() is the refusal).
struct RecordingTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RecordingBudget {
 public:
  static constexpr double kUpFrontBytes = 16e6;

  /// Reserves the first rows of `recording` (empty) for a run that observes at most
  /// `expected_states` states.
  RecordingBudget(TrajectoryRecording& recording, long expected_states);

  /// Call before each observe(): grows the buffers when they are full. Throws RecordingTooLarge.
  void makeRoom() {
    if (recording_.size() == recording_.capacity()) grow();
  }
  /// Why the recording could not grow ("" while it could).
  const std::string& refusal() const { return refusal_; }

 private:
  void grow();
  [[noreturn]] void refuse(long wanted, const std::string& why);

  TrajectoryRecording& recording_;
  long expected_states_;
  std::string refusal_;
};

}  // namespace kktdae::python
