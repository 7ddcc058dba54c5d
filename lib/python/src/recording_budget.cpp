#include "recording_budget.hpp"

#include <algorithm>
#include <new>

#include "kktdae/core/available_memory.hpp"

namespace kktdae::python {
namespace {

double bytesOf(long states, const TrajectoryRecording& recording) {
  return static_cast<double>(states) * static_cast<double>(recording.bytesPerState());
}

}  // namespace

RecordingBudget::RecordingBudget(TrajectoryRecording& recording, long expected_states)
    : recording_(recording), expected_states_(std::max(1L, expected_states)) {
  const long up_front = static_cast<long>(kUpFrontBytes / static_cast<double>(recording.bytesPerState()));
  try {
    recording_.reserve(std::min(expected_states_, std::max(1L, up_front)));
  } catch (const std::bad_alloc&) {
    // Not refused yet: the run may need fewer rows than this; makeRoom() decides row by row.
  }
}

void RecordingBudget::grow() {
  const long size = recording_.size();
  // Doubling keeps the copies amortized O(1) per state; the run's own count caps it (the last
  // growth of a run that goes to its end takes exactly what it still needs).
  const long wanted = std::max(size + 1, size < expected_states_ ? std::min(2 * size, expected_states_) : 2 * size);
  // The grown buffers must fit in what is still available: a margin, since each series' old block
  // is given back once copied, and the kernel may need the rest for the run's own work.
  const double needed = bytesOf(wanted, recording_);
  const AvailableMemory available = availableMemory();
  if (available.bytes && needed > static_cast<double>(*available.bytes)) {
    refuse(wanted, formatBytes(static_cast<double>(*available.bytes)) + " available (" + available.source + ")");
  }
  try {
    recording_.reserve(wanted);
  } catch (const std::bad_alloc&) {
    refuse(wanted, "the allocation failed (std::bad_alloc)");
  }
}

void RecordingBudget::refuse(long wanted, const std::string& why) {
  const long size = recording_.size();
  refusal_ = "simulate: the recording cannot grow from " + std::to_string(size) + " states (" +
             formatBytes(bytesOf(size, recording_)) + ") to " + std::to_string(wanted) + " (" +
             formatBytes(bytesOf(wanted, recording_)) + "): " + why + "; this run would record up to " +
             std::to_string(expected_states_) + " states (" + formatBytes(bytesOf(expected_states_, recording_)) +
             "). Pass record=False (an observer still sees every state; the Summary keeps the violations) or "
             "options.observe_every = k to record every k-th step";
  throw RecordingTooLarge(refusal_);
}

}  // namespace kktdae::python
