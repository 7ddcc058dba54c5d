#include "kktdae/kkt/solve_accelerations.hpp"

#include "kktdae/core/checks.hpp"
#include "kkt_steps.hpp"
#include "small_schur.hpp"

namespace kktdae {

KktResult solveAccelerations(const ConstrainedSystem& system, double t, ConstVectorRef q,
                             ConstVectorRef v, ConstVectorRef u, const Stabilization& stabilization,
                             const KktOptions& options, KktWorkspace& ws) {
  requireSize("q", q.size(), ws.nq);
  requireSize("v", v.size(), ws.nq);
  requireSize("u", u.size(), ws.nu);
  // A workspace built from this very system has its sizes (a model never changes them): the
  // two virtual calls are for a workspace handed another system.
  if (ws.resolved_from.system != &system) {
    requireSize("workspace.nc", ws.nc, system.nc());
    requireSize("workspace.nq", ws.nq, system.nq());
  }

  if (!ws.resolved_from.matches(system, options) && ws.sparse != usesSparsePath(system, options)) {
    throwInvalid("options.path", std::string("the workspace was built for the ") + (ws.sparse ? "sparse" : "dense") +
                                     " path, these options resolve to the other (KktPath " +
                                     std::string(toString(options.path)) + ")");
  }

  // The small Schur path checks the model's outputs for NaN/Inf as it reads them.
  const bool small_schur = options.form == KktForm::Schur && detail::smallSchurTakes(stabilization, ws);
  KktResult result = detail::evaluateModelTerms(system, t, q, v, u, stabilization, ws,
                                                small_schur ? detail::OutputCheck::Deferred : detail::OutputCheck::Now);
  if (!result.ok()) return result;
  if (ws.sparse) {
    return options.form == KktForm::Schur ? detail::solveSchurSparse(stabilization, options, ws)
                                          : detail::solveBlockSparse(stabilization, options, ws);
  }
  return options.form == KktForm::Schur ? detail::solveSchur(stabilization, options, ws)
                                        : detail::solveBlock(stabilization, options, ws);
}

}  // namespace kktdae
