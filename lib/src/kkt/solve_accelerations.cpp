#include "kktdae/kkt/solve_accelerations.hpp"

#include "kktdae/core/checks.hpp"
#include "kkt_steps.hpp"

namespace kktdae {

KktResult solveAccelerations(const ConstrainedSystem& system, double t, ConstVectorRef q,
                             ConstVectorRef v, ConstVectorRef u, const Stabilization& stabilization,
                             const KktOptions& options, KktWorkspace& ws) {
  requireSize("q", q.size(), ws.nq);
  requireSize("v", v.size(), ws.nq);
  requireSize("u", u.size(), ws.nu);
  requireSize("workspace.nc", ws.nc, system.nc());
  requireSize("workspace.nq", ws.nq, system.nq());

  if (!ws.resolved_from.matches(system, options) && ws.sparse != usesSparsePath(system, options)) {
    throwInvalid("options.path", std::string("the workspace was built for the ") + (ws.sparse ? "sparse" : "dense") +
                                     " path, these options resolve to the other (KktPath " +
                                     std::string(toString(options.path)) + ")");
  }

  KktResult result = detail::evaluateModelTerms(system, t, q, v, u, stabilization, ws);
  if (!result.ok()) return result;
  if (ws.sparse) {
    return options.form == KktForm::Schur ? detail::solveSchurSparse(stabilization, options, ws)
                                          : detail::solveBlockSparse(stabilization, options, ws);
  }
  return options.form == KktForm::Schur ? detail::solveSchur(stabilization, options, ws)
                                        : detail::solveBlock(stabilization, options, ws);
}

}  // namespace kktdae
