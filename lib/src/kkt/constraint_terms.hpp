#pragma once
// The constraint terms alone, for a state that is recorded but not solved at (internal header).

#include <string>

#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::detail {

/// Fills φ, J, ∂φ/∂t and φ̇ = J q̇ + ∂φ/∂t at (t, q, v) into `ws` through one
/// ConstrainedSystem::evaluateTerms() call (h and γ are written too, and not checked), with
/// φ̇ summed exactly as evaluateModelTerms() sums it, so the recorded ‖φ̇‖∞ keeps its bits. What
/// the recorder's ‖φ‖∞, ‖φ̇‖∞ and the divergence rule read at an adaptive driver's output; M, the
/// inputs, f and the stabilization target are left alone. Dense workspaces only (the sparse
/// path's J lives in its constraint space: callers use evaluateModelTerms() there).
/// Returns false, with `failure` saying which term, when φ or φ̇ is not finite.
bool evaluateConstraintTerms(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v,
                             KktWorkspace& ws, std::string& failure);

}  // namespace kktdae::detail
