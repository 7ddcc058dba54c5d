#pragma once
/// @file
/// Energy drift observer: how far the total energy wanders from its initial value.

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Tracks E(t) = T + V against E(t0). Call observe() with each state; the first call sets E(t0).
class EnergyDrift {
 public:
  /// Tracks `system`'s energy; the system must outlive the tracker.
  explicit EnergyDrift(const ConstrainedSystem& system) : system_(system) {}

  /// Takes in E = T + V of the state (the system's totalEnergy()). Sizes: q, v nq.
  void observe(double t, ConstVectorRef q, ConstVectorRef v);
  /// Takes in E = T + V of the next state, computed by the caller (e.g. in one pass with other
  /// per-state numbers); the same as observe() for a caller that computes it as totalEnergy() does.
  void observeEnergy(double energy);

  double initialEnergy() const { return initial_; }  ///< E(t0) [J]
  double finalEnergy() const { return final_; }      ///< E of the last state taken in [J]
  /// max_t |E(t) − E(t0)| [J].
  double maxAbsDrift() const { return max_abs_drift_; }
  long samples() const { return samples_; }  ///< states taken in

 private:
  const ConstrainedSystem& system_;
  double initial_ = 0.0;
  double final_ = 0.0;
  double max_abs_drift_ = 0.0;
  long samples_ = 0;
};

}  // namespace kktdae
