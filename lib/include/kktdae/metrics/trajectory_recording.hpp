#pragma once
/// @file
/// A whole run's observed states in flat, row-major arrays: what the Python bindings hand to numpy
/// without a copy, and what a C++ caller records when it wants every series of a run.

#include <vector>

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// One row per observed state: t, q (nq), q̇ (nq), λ (nc), the violation ‖φ(q, t)‖∞ and the total
/// energy T + V. Each series is one contiguous row-major block (state i's q is q()[i·nq … i·nq+nq−1]).
///
/// The buffers are reserved for `capacity` states at construction, so a run that observes at most
/// that many allocates nothing per step (more states still record, with amortized growth). Feed it
/// through simulate()'s observer; it evaluates φ and the energies once per observed state.
class TrajectoryRecording {
 public:
  /// Sizes the evaluation buffer and reserves `capacity` (≥ 0) states. Throws
  /// std::invalid_argument for a negative capacity.
  TrajectoryRecording(const ConstrainedSystem& system, long capacity);

  /// Appends one state. Sizes: q, v nq; lambda nc.
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda);

  long size() const { return static_cast<long>(t_.size()); }  ///< states recorded
  int nq() const { return nq_; }  ///< coordinates per state
  int nc() const { return nc_; }  ///< multipliers per state

  /// States the buffers hold before the next one reallocates them.
  long capacity() const { return static_cast<long>(t_.capacity()); }
  /// Bytes one state takes in the buffers: 3 + 2 nq + nc doubles.
  std::size_t bytesPerState() const;
  /// Makes room for `states` states in all (nothing when capacity() already allows it), so that a
  /// caller can grow the buffers when and as far as it decides (checking the memory first), not
  /// when observe() happens to fill them. Throws std::bad_alloc as std::vector::reserve does; the
  /// states recorded stay as they were.
  void reserve(long states);

  /// The series; the Python bindings move them out (release()) instead of copying.
  ///@{
  std::vector<double>& times() { return t_; }             ///< t [s], one per state
  std::vector<double>& positions() { return q_; }         ///< q, nq per state
  std::vector<double>& velocities() { return v_; }        ///< q̇, nq per state
  std::vector<double>& multipliers() { return lambda_; }  ///< λ, nc per state
  std::vector<double>& violations() { return violation_; }  ///< ‖φ(q, t)‖∞, one per state
  std::vector<double>& energies() { return energy_; }     ///< T + V [J], one per state
  ///@}

 private:
  const ConstrainedSystem& system_;
  int nq_ = 0, nc_ = 0;
  Vector phi_;  ///< φ at the observed state, nc
  std::vector<double> t_, q_, v_, lambda_, violation_, energy_;
};

}  // namespace kktdae
