#include "kktdae/integrators/acceleration_function.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "../kkt/constraint_terms.hpp"
#include "../kkt/dependent_rows.hpp"
#include "../kkt/kkt_steps.hpp"
#include "../kkt/small_schur.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {

AccelerationFunction::AccelerationFunction(const ConstrainedSystem& system, Stabilization stabilization,
                                           KktOptions options, Controller controller)
    : system_(system),
      stabilization_(stabilization),
      options_(options),
      controller_(std::move(controller)),
      workspace_(system, options),
      u_(Vector::Zero(system.nu())) {
  stabilization_.validate();
  options_.validate();
  // Once per run: the sizes, M's structure, the form and the stabilization are fixed for it.
  whole_solve_ = detail::smallSchurSolverFor(stabilization_, options_, workspace_);
}

KktResult AccelerationFunction::evaluate(double t, ConstVectorRef q, ConstVectorRef v, VectorRef qdd) {
  // Each branch returns a prvalue built around one named result (NRVO), so neither moves a
  // KktResult: a local result filled by the general path would be move-assigned, and two named
  // results in one function are returned by moves (measured: +26 and +33 instructions a solve).
  if (whole_solve_ != nullptr) {
    return [&] {
      KktResult result;
      evaluate(t, q, v, qdd, result);
      return result;
    }();
  }
  return [&] {
    if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
    ++solves_;
    KktResult result = solveAccelerations(system_, t, q, v, u_, stabilization_, options_, workspace_);
    qdd = workspace_.qdd;
    if (result.rank_deficient) logRankDeficiency(t, result);
    return result;
  }();
}

bool AccelerationFunction::evaluate(double t, ConstVectorRef q, ConstVectorRef v, VectorRef qdd, KktResult& result) {
  if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
  ++solves_;
  if (whole_solve_ != nullptr && whole_solve_(system_, t, q, v, stabilization_, options_, workspace_, qdd, result)) {
    return true;
  }
  result = solveAccelerations(system_, t, q, v, u_, stabilization_, options_, workspace_);
  qdd = workspace_.qdd;
  if (result.rank_deficient) logRankDeficiency(t, result);
  return result.ok();
}

void AccelerationFunction::logRankDeficiency(double t, const KktResult& result) {
  RankDeficiencyLog& log = rank_deficiency_;
  if (log.solves == 0) {
    // Only the first one pays for the QR that names rows: a redundant model hits this every solve.
    log.first_time = t;
    log.first_rcond = result.rcond;
    if (!workspace_.sparse) {  // the sparse path has no dense J to run the QR on
      log.first_dependent_rows = detail::dependentConstraintRows(
          workspace_.J, std::sqrt(std::max(options_.rank_tolerance, options_.min_rcond)));
    }
    spdlog::debug("{}: rank-deficient KKT solve at t = {} (rcond {}, rank {} of {}); policy {}", system_.name(),
                  formatDouble(t), formatDouble(result.rcond), result.rank, workspace_.nc,
                  toString(options_.rank_deficiency));
  }
  ++log.solves;
  if (result.rank >= 0 && (log.min_rank < 0 || result.rank < log.min_rank)) log.min_rank = result.rank;
}

KktResult AccelerationFunction::evaluateTerms(double t, ConstVectorRef q, ConstVectorRef v) {
  if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
  return detail::evaluateModelTerms(system_, t, q, v, u_, stabilization_, workspace_);
}

bool AccelerationFunction::evaluateConstraintTerms(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure) {
  if (!workspace_.sparse) return detail::evaluateConstraintTerms(system_, t, q, v, workspace_, failure);
  const KktResult terms = evaluateTerms(t, q, v);
  if (!terms.ok()) failure = terms.message;
  return terms.ok();
}

}  // namespace kktdae
