#include "constraint_terms.hpp"

#include <cassert>
#include <cstdint>

#include "all_finite.hpp"
#include "small_schur.hpp"

namespace kktdae::detail {

bool evaluateConstraintTerms(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v,
                             KktWorkspace& ws, std::string& failure) {
  assert(!ws.sparse);
  if (!allFinite(q) || !allFinite(v)) {
    failure = "non-finite state (q, v)";
    return false;
  }
  Eigen::Map<Vector> no_values(nullptr, 0);
  ModelTermsOutput terms{ws.h, ws.phi, ws.J, no_values, ws.gamma, ws.phi_t};
  system.evaluateTerms(q, v, t, terms);
  // The same two ways evaluateModelTerms() forms φ̇ (nc ≤ 4 without the kernel's setup), so
  // that an output's ‖φ̇‖∞ is the bits a full evaluation gave.
  if (!constraintRateSmall(v, ws)) {
    ws.phi_dot.noalias() = ws.J * v;
    ws.phi_dot += ws.phi_t;
  }
  std::uint64_t carries = 0;
  const double* phi = ws.phi.data();
  const double* phi_dot = ws.phi_dot.data();
  for (int i = 0; i < ws.nc; ++i) carries |= finiteCarry(phi[i]) | finiteCarry(phi_dot[i]);
  if (carriesFinite(carries)) return true;
  failure = allFinite(ws.phi) ? "non-finite constraint rate phi_dot = J v + phi_t (NaN/Inf from the model)"
                              : "non-finite constraint phi (NaN/Inf from the model)";
  return false;
}

}  // namespace kktdae::detail
