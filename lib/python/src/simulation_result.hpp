#pragma once
// What simulate() and sweep() return to Python: the Summary and the recording as numpy arrays, and
// the helpers both use to make them (the recording's growth bound, the words for its violation).
#include <pybind11/pybind11.h>

#include <string>

#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/simulate/summary.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::python {
namespace py = pybind11;

/// The recorded series as numpy arrays (moved out of the C++ buffers, not copied).
struct Recording {
  py::object t, q, v, lambda, violation, energy;
  long size = 0;
  /// What `violation` measures, in words and units (the model's φ decides them).
  std::string violation_measure;
};

/// What simulate() returns.
struct SimulationResult {
  Summary summary;
  py::object recording = py::none();
  /// The Python exception that ended a MODEL_ERROR run (model, observer, controller, event), or None.
  py::object exception = py::none();
};

/// A Recording from arrays (pickle, slices): t, violation, energy of shape (n,), q and v (n, nq),
/// lam (n, nc), each converted to float64; ValueError naming the series whose shape disagrees.
Recording makeRecording(py::handle t, py::handle q, py::handle v, py::handle lam, py::handle violation,
                        py::handle energy, std::string violation_measure);

/// The words Recording.violation_measure carries for a run of `system`. Needs the GIL for a
/// Python model (its name()).
std::string violationMeasure(const ConstrainedSystem& system);

/// Moves the recorded series into numpy arrays. Needs the GIL.
Recording toRecording(TrajectoryRecording& recording, std::string violation_measure);

/// How many states a run observes at most: the initial one, every observe_every-th grid point and
/// the last. What the recording may grow to (recording_budget.hpp).
long expectedObservations(const SimulationOptions& options, double t0);

/// Raises ValueError unless `options` say how long the run is (steps or end_time). The C++ library
/// takes 1000 steps then (SimulationOptions::steps); from Python a run of unsaid length is refused,
/// `where` ("simulate", "sweep: run 3") naming the call.
void requireRunLength(const SimulationOptions& options, const std::string& where);

}  // namespace kktdae::python
