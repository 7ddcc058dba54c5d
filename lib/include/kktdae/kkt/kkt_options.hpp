#pragma once
/// @file
/// Options of the acceleration (KKT) solve.

#include <string>
#include <string_view>

namespace kktdae {

/// Which linear system is factorized for (q̈, λ).
enum class KktForm {
  /// (J M⁻¹ Jᵀ) λ = −(J M⁻¹ f + γ + stabilization), q̈ = M⁻¹(f + Jᵀλ), f = Sᵀu − h.
  /// Cholesky of an nc×nc SPD matrix; wins when M⁻¹ is cheap (diagonal M) and nc ≪ nq.
  Schur,
  /// [M −Jᵀ; J 0][q̈; λ] = [f; −γ − stabilization], LU with partial pivoting of the
  /// (nq+nc)-square matrix. Needs no M⁻¹ and never squares J's scaling (better conditioned when
  /// J M⁻¹ Jᵀ is nearly singular); by flop count it costs more than Schur even for a dense M.
  Block,
};

/// "schur" / "block".
std::string_view toString(KktForm form);
/// Parses "schur" or "block"; throws std::invalid_argument listing the choices otherwise.
KktForm parseKktForm(std::string_view text);

struct KktOptions {
  KktForm form = KktForm::Schur;
  /// A solve whose reciprocal condition estimate (1-norm, of the factorized matrix: J M⁻¹ Jᵀ for
  /// Schur, the block matrix for Block) falls below this fails with KktStatus::IllConditioned
  /// instead of returning digits that mean nothing. At 1e-13 about three significant digits of λ
  /// survive in double precision. A 1×1 Schur matrix always has rcond 1: a single constraint
  /// whose gradient vanishes is caught only when it vanishes exactly (Cholesky breakdown).
  double min_rcond = 1e-13;
  /// Estimate rcond (LAPACK-style 1-norm estimator) on every solve. Off skips the estimate and
  /// keeps only breakdown and non-finite detection: for the tightest loops, once a model's
  /// conditioning is known.
  bool estimate_condition = true;

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

}  // namespace kktdae
