#pragma once
/// @file
/// Options of RATTLE (Integrator::Rattle).

namespace kktdae {

/// The position-constraint Newton of a RATTLE step (docs/integrators.md § RATTLE).
struct RattleOptions {
  /// Newton stops when ‖φ(qₙ₊₁)‖∞ ≤ tolerance (> 0) [units of φ: m² for the chains' ½(|d|² − L²)].
  /// Every accepted step then satisfies φ to this tolerance. The default sits two decades above
  /// the round-off floor of a 1000-link chain (~eps·N·L²); raise it for longer chains, whose φ
  /// cannot be computed more exactly than that.
  double newton_tolerance = 1e-12;
  /// Newton iterations allowed per step (≥ 1). With J frozen at qₙ the iteration converges
  /// linearly at a rate O(dt·|q̇|/L) (measured: 3–5 iterations on the double pendulum at dt 0.005);
  /// a step that needs more than the cap fails the run, naming the step and the residual.
  int newton_max_iterations = 50;

  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
};

}  // namespace kktdae
