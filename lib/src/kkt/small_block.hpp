#pragma once
// The block form for small systems, nq + nc ≤ kSmallBlockMaxSize (internal header).

#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae::detail {

/// Largest nq + nc the small block path takes: up to the double pendulum in maximal coordinates
/// (4 + 2). Above it the dynamic-size LU's setup is a small part of its arithmetic.
inline constexpr int kSmallBlockMaxSize = 6;

/// Whether solveBlockSmall() takes the system of `ws`: the dense path, 2 ≤ nq + nc ≤
/// kSmallBlockMaxSize.
bool smallBlockTakes(const KktWorkspace& ws);

/// Factorizes the assembled ws.block ([M −Jᵀ; J R], solveBlock() fills it) and solves it for
/// ws.block_rhs at the fixed size nq + nc, on stack matrices: the general path's partial-pivoting
/// LU, zero-pivot test, Hager 1-norm condition estimate (KktOptions::estimate_condition) and
/// solve, with none of the dynamic-size calls that cost more than the arithmetic on seed 002's
/// 3×3 (the estimate's probe solves above all).
///
/// Returns true with `result` (Ok, or IllConditioned / NonFinite as finishSolve() words them)
/// and ws.qdd, ws.lambda written when the matrix has no zero pivot and its estimate calls for
/// no rank-deficiency policy. Returns false, having written nothing the general path reads,
/// otherwise (a zero pivot, a NaN or ±∞ entry, rcond below min_rcond under a policy): the
/// general path then factorizes again and fails or applies the policy exactly as without this
/// one. Does not fill ws.block_lu.
bool solveBlockSmall(const KktOptions& options, KktWorkspace& ws, KktResult& result);

/// solveBlockSmall() on [M −Jᵀ; J R] and [f; target] assembled on the stack straight from
/// ws.M (or ws.mass_diagonal), ws.J, ws.regularization (R, when `soft`; zero otherwise),
/// ws.force and ws.constraint_target: the numbers solveBlock() would copy into ws.block and
/// ws.block_rhs, without those dynamic-size copies (on seed 002's 3×3 they cost about a third of
/// the solve). Neither ws.block nor ws.block_rhs is written: on false the caller assembles them
/// for the general path.
bool solveBlockSmallFromTerms(bool soft, const KktOptions& options, KktWorkspace& ws, KktResult& result);

}  // namespace kktdae::detail
