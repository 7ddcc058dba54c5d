#pragma once
// The Schur form for a handful of constraints and a diagonal M (internal header).

#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::detail {

/// Largest nc the small path takes. Up to 4 its every sum is accumulated in the order Eigen's
/// dynamic-size kernels use (checked bit for bit against the general path in
/// tests/unit/kkt/small_schur_test.cpp); beyond it, dense Eigen wins anyway.
inline constexpr int kSmallSchurMaxConstraints = 4;

/// Whether solveSchurSmall() takes the system of `ws` under `stabilization`: the dense path,
/// 1 ≤ nc ≤ kSmallSchurMaxConstraints, nq + 2nc < 20, a diagonal M, no soft constraints.
bool smallSchurTakes(const Stabilization& stabilization, const KktWorkspace& ws);

/// Solves (J M⁻¹ Jᵀ) λ = −(J M⁻¹ f + γ) − stabilization and q̈ = (f + Jᵀλ) / m, with the same
/// rcond estimate, for 1 ≤ nc ≤ kSmallSchurMaxConstraints with nq + 2nc < 20 (where Eigen
/// forms J M⁻¹ Jᵀ coefficient by coefficient), diagonal M and no soft constraints,
/// in plain loops over stack arrays: on the double pendulum the dynamic-size Eigen calls of the
/// general path (and the condition estimate's twelve triangular solves through them) cost more
/// than the arithmetic.
///
/// It reads every model output it uses (f, J, γ, φ, φ̇) once and checks their finiteness as it
/// goes, so evaluateModelTerms() may leave that check to it (OutputCheck::Deferred): when one is
/// NaN or ±∞ it returns true with `result` the failure checkModelOutputs() names.
/// Returns true with `result` set (status Ok) and ws.lambda, ws.qdd written when it solved.
/// Returns false, having written nothing that the general path does not overwrite, when the
/// system is not one it takes or when anything is off (Cholesky breakdown, rcond below
/// min_rcond or NaN, a non-finite solution): the general path then solves again and reports
/// (or applies the rank-deficiency policy) exactly as without this one.
bool solveSchurSmall(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws,
                     KktResult& result);

/// One whole acceleration solve on the small Schur path, from the model call to q̈ (the work of
/// evaluateModelTerms() and solveSchurSmall() for one nc, in one function): q, v, qdd of size
/// nq. Returns true with `result` overwritten (status Ok; its string and vector cleared, not
/// rebuilt) and ws.qdd, ws.lambda, the model terms of ws and `qdd` written. Returns false
/// whenever anything is off — wrong sizes, a non-finite state or model output, a bad diagonal
/// M, a Cholesky breakdown, rcond below min_rcond or NaN, a non-finite solution — having left
/// `result` and `qdd` alone: solveAccelerations() then evaluates and solves again and reports
/// (or throws, or applies the rank-deficiency policy) exactly as it does without this path.
using SmallSchurSolver = bool (*)(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v,
                                  const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws,
                                  VectorRef qdd, KktResult& result);

/// The SmallSchurSolver for the system `ws` was built from, chosen once per run (the sizes,
/// the mass structure, the form and the stabilization's kind are fixed for a run): nullptr
/// unless options.form is Schur, the model has no inputs (nu = 0) and smallSchurTakes().
SmallSchurSolver smallSchurSolverFor(const Stabilization& stabilization, const KktOptions& options,
                                     const KktWorkspace& ws);

/// ‖A⁻¹‖₁ of the SPD 2×2 A = L Lᵀ with L = [l00 0; l10 l11] (l00, l11 > 0), exactly (the larger
/// column 1-norm of A⁻¹), as the small path's condition estimate computes it for nc = 2.
double inverseOneNorm2x2(double l00, double l10, double l11);

/// φ̇ = J q̇ + ∂φ/∂t into ws.phi_dot from ws.J and ws.phi_t, for 1 ≤ nc ≤ 4 and nq < 128, where
/// Eigen's matrix–vector kernel sums each row in index order from zero, as this loop does, but
/// costs more in setup than the double pendulum's twelve products. Returns false, having
/// written nothing, for other sizes.
bool constraintRateSmall(ConstVectorRef v, KktWorkspace& ws);

}  // namespace kktdae::detail
