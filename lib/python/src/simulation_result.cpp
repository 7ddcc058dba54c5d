#include "simulation_result.hpp"

#include <algorithm>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae::python {

/// The series' names, in the order Recording(...) takes them and pickle stores them.
constexpr const char* kRecordingSeries[] = {"t", "q", "v", "lam", "violation", "energy"};

/// A Recording from arrays (pickle, slices): t, violation, energy of shape (n,), q and v (n, nq),
/// lam (n, nc), each converted to float64; ValueError naming the series whose shape disagrees.
Recording makeRecording(py::handle t, py::handle q, py::handle v, py::handle lam, py::handle violation,
                        py::handle energy, std::string violation_measure) {
  const char* const where = "Recording";
  py::handle given[] = {t, q, v, lam, violation, energy};
  py::object series[6];
  for (int i = 0; i < 6; ++i) {
    series[i] = realArray(given[i], where, kRecordingSeries[i]);
  }
  const auto shapeOf = [&](int i) { return py::cast<py::array>(series[i]); };
  const py::ssize_t n = shapeOf(0).ndim() == 1 ? shapeOf(0).shape(0) : -1;
  if (n < 0) throw py::value_error("Recording: t must have shape (n,), got " + shapeText(shapeOf(0)));
  const py::ssize_t nq = shapeOf(1).ndim() == 2 ? shapeOf(1).shape(1) : -1;
  const py::ssize_t nc = shapeOf(3).ndim() == 2 ? shapeOf(3).shape(1) : -1;
  for (int i = 1; i < 6; ++i) {
    const py::array a = shapeOf(i);
    const bool matrix = i == 1 || i == 2 || i == 3;
    const py::ssize_t cols = i == 3 ? nc : nq;
    const bool fits = matrix ? (a.ndim() == 2 && a.shape(0) == n && cols >= 0 && a.shape(1) == cols)
                             : (a.ndim() == 1 && a.shape(0) == n);
    if (!fits) {
      const std::string expected = matrix ? "(" + std::to_string(n) + ", " + (i == 3 ? "nc" : "nq") + ")"
                                          : "(" + std::to_string(n) + ",)";
      throw py::value_error(std::string("Recording: ") + kRecordingSeries[i] + " must have shape " + expected +
                            " (t has " + std::to_string(n) + " rows), got " + shapeText(a));
    }
  }
  Recording r;
  r.t = series[0];
  r.q = series[1];
  r.v = series[2];
  r.lambda = series[3];
  r.violation = series[4];
  r.energy = series[5];
  r.size = static_cast<long>(n);
  r.violation_measure = std::move(violation_measure);
  return r;
}


/// The words Recording.violation_measure carries: ‖φ‖∞ is in φ's units, which for a distance
/// constraint written as ½(|d|² − L²) are m², not the metres of a length error (seed 000's
/// chapter reports max_k | |d_k| − L_k |: 0.384 m where ‖φ‖∞ is 0.458 m²).
std::string violationMeasure(const ConstrainedSystem& system) {
  std::string words = "‖φ(q, t)‖∞ = max_k |φ_k| of " + system.name() + ", in the units of its φ";
  if (dynamic_cast<const PendulumChain*>(&system) != nullptr) {
    words += " (φ_k = ½(|d_k|² − L_k²) [m²]; the chapter's max_k | |d_k| − L_k | [m] is "
             "PendulumChain.link_length_violation(recording.q))";
  }
  return words;
}

Recording toRecording(TrajectoryRecording& recording, std::string violation_measure) {
  Recording out;
  out.violation_measure = std::move(violation_measure);
  const py::ssize_t n = recording.size();
  out.size = recording.size();
  out.t = adopt(std::move(recording.times()), {n});
  out.q = adopt(std::move(recording.positions()), {n, recording.nq()});
  out.v = adopt(std::move(recording.velocities()), {n, recording.nq()});
  out.lambda = adopt(std::move(recording.multipliers()), {n, recording.nc()});
  out.violation = adopt(std::move(recording.violations()), {n});
  out.energy = adopt(std::move(recording.energies()), {n});
  return out;
}

py::object recordingCopy(const TrajectoryRecording& recording, const ConstrainedSystem& system) {
  TrajectoryRecording copy = recording;  // toRecording() moves the buffers out
  return py::cast(toRecording(copy, violationMeasure(system)));
}

/// How many states a run observes at most: the initial one, every observe_every-th grid point and
/// the last. What the recording may grow to (recording_budget.hpp).
long expectedObservations(const SimulationOptions& options, double t0) {
  const long steps = std::max(0L, options.gridSteps(t0));
  return steps / std::max(1L, options.observe_every) + 2;
}

void requireRunLength(const SimulationOptions& options, const std::string& where) {
  if (options.steps || options.end_time) return;
  throw py::value_error(where + ": SimulationOptions gives neither steps nor end_time; give one "
                                "(SimulationOptions(steps=4000) or end_time=20.0): a run of unsaid length is refused "
                                "from Python (the C++ library would take 1000 steps)");
}

}  // namespace kktdae::python
