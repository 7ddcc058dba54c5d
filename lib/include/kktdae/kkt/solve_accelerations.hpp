#pragma once
/// @file
/// The acceleration solve: given (t, q, q̇, u), find q̈ and λ.

#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Solves M q̈ + h = Sᵀu + Jᵀλ together with J q̈ + γ + 2α φ̇ + β² φ = 0 for (q̈, λ), in the
/// form options.form selects; both forms give the same answer to rounding.
///
/// Sizes: q, v nq; u nu (empty when nu = 0). On return ws.qdd (nq) and ws.lambda (nc) hold the
/// solution, and ws.phi, ws.phi_dot, ws.J, ws.gamma the constraint quantities at (t, q).
/// Never returns NaN as a success: a singular, ill-conditioned or non-finite system comes back
/// with a failed status, the condition estimate and the offending rows.
/// Throws std::invalid_argument for wrong sizes (a programming error, not a numerical one).
KktResult solveAccelerations(const ConstrainedSystem& system, double t, ConstVectorRef q,
                             ConstVectorRef v, ConstVectorRef u, const Stabilization& stabilization,
                             const KktOptions& options, KktWorkspace& ws);

}  // namespace kktdae
