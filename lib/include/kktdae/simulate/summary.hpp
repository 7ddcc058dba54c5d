#pragma once
/// @file
/// What a run reports.

#include <limits>
#include <string>

#include "kktdae/integrators/integrator.hpp"
#include "kktdae/kkt/kkt_options.hpp"

namespace kktdae {

enum class RunStatus {
  NotRun,          ///< simulate() has not finished a run with this summary
  Success,         ///< reached the final time
  KktFailure,      ///< a KKT solve failed (singular, ill-conditioned, non-finite model output)
  NonFiniteState,  ///< a step produced NaN/Inf in q or q̇
};

const char* toString(RunStatus status);

struct Summary {
  RunStatus status = RunStatus::NotRun;
  std::string message;  ///< what happened, where and when, in words
  Integrator integrator = Integrator::SemiImplicitEuler;
  KktForm form = KktForm::Schur;

  long steps = 0;       ///< steps completed (the state after each was observed)
  long kkt_solves = 0;  ///< acceleration solves, all stages included (= right-hand-side evaluations)
  double t_final = 0.0; ///< time of the last good state
  long failed_step = -1;  ///< 1-based index of the step that failed, −1 if none
  double wall_seconds = 0.0;

  double max_phi_inf = 0.0;      ///< max over observed states of ‖φ‖∞
  double max_phi_dot_inf = 0.0;  ///< max over observed states of ‖φ̇‖∞ = ‖J q̇ + ∂φ/∂t‖∞
  double final_phi_inf = 0.0;
  double final_phi_dot_inf = 0.0;
  double min_rcond = std::numeric_limits<double>::infinity();  ///< worst KKT condition estimate seen

  bool ok() const { return status == RunStatus::Success; }
  /// One line: status, steps, solves, time, violations, wall time (and the message on failure).
  std::string briefReport() const;
};

}  // namespace kktdae
