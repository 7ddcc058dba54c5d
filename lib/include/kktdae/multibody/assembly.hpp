#pragma once
/// @file
/// Assembly: from an approximate configuration to one on φ(q, t) = 0 (Gauss–Newton), then the
/// velocities from the user's independent joint rates (docs/multibody.md § Assembly).

#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/multibody/mechanism.hpp"

namespace kktdae::multibody {

/// How assemble() iterates: the Gauss–Newton budget, its tolerance and the rank threshold.
struct AssemblyOptions {
  int max_iterations = 50;   ///< Gauss–Newton iterations ≥ 1
  double tolerance = 1e-12;  ///< ‖φ‖∞ and the velocity rows' residual at which it stops (> 0)
  /// Fail: a configuration where J loses rank (an overconstrained mechanism, a singular
  /// position) is reported with its dependent rows and not assembled. MinimumNorm (and
  /// Regularize, which assembly treats alike): minimum-norm Gauss–Newton steps and velocities,
  /// the dependent rows still reported.
  RankDeficiencyPolicy rank_deficiency = RankDeficiencyPolicy::Fail;
  /// J's singular values below rank_tolerance · the largest count as zero, in (0, 1).
  double rank_tolerance = 1e-10;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// A joint's rate the user prescribes at assembly: its read-back coordinate's rate
/// (Mechanism::jointRates(); for a cylindrical joint the slide's).
struct IndependentRate {
  int joint = -1;     ///< the joint's index in the mechanism
  double rate = 0.0;  ///< the rate [rad/s or m/s, as the joint's coordinate]
};

/// What assemble() did: whether it converged, the residuals, J's rank, and what did not close.
struct AssemblyReport {
  bool converged = false;       ///< positions and velocities assembled
  int iterations = 0;           ///< Gauss–Newton iterations taken
  double residual = 0.0;        ///< ‖φ‖∞ at the end
  double velocity_residual = 0.0;  ///< ‖[J; G] q̇ − [−∂φ/∂t; rates]‖∞ at the end
  int rank = 0;                 ///< numerical rank of J at the end
  std::vector<int> dependent_rows;  ///< rows of φ that carry a dependency, the support of null(Jᵀ) (empty at full rank)
  /// Not assembled: the loop that does not close, named by its closing joint: the last joint
  /// (in the order added) without whose rows the others assemble. Empty when assembled, or
  /// when no single joint's removal lets the rest close.
  std::string failing_joint;
  std::string message;          ///< why it failed, in words; empty on success
};

/// Moves state.q onto φ(q, state.t) = 0 by Gauss–Newton with minimum-norm steps, then sets
/// state.v to the q̇ of least kinetic energy with J q̇ = −∂φ/∂t and the given joint rates. On
/// failure `state` keeps what the iterations reached and the report says why. Throws
/// std::invalid_argument for wrong sizes, invalid options or a rate on a joint without a
/// read-back coordinate.
AssemblyReport assemble(const Mechanism& mechanism, State& state, const std::vector<IndependentRate>& rates = {},
                        const AssemblyOptions& options = {});

}  // namespace kktdae::multibody
