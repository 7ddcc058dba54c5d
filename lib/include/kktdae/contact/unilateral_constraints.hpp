#pragma once
/// @file
/// Unilateral constraints (gaps) declared beside a model's equalities φ(q, t) = 0:
///
///     g(q, t) ≥ 0,   J_N = ∂g/∂q,   ġ = J_N q̇ + ∂g/∂t,   g̈ = J_N q̈ + γ_N,
///
/// with the contact forces entering the equations of motion as
///
///     M q̈ + h = Jᵀλ + J_Nᵀλ_N,   λ_N ≥ 0 ⊥ g ≥ 0 (a gap pushes, never pulls),
///
/// and, at an impact of gap k, Newton's law ġ⁺_k = −e_k ġ⁻_k with the restitution e_k ∈ [0, 1].
/// Like ConstrainedSystem, an implementation is constant during a run, keeps no mutable state and
/// writes into caller-owned outputs of the documented sizes. A model may derive from both
/// interfaces (their method names do not collide) or hand a separate object to the contact run.

#include <string>
#include <vector>

#include "kktdae/core/types.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::contact {

/// The interface of a model's gaps g(q, t) ≥ 0 (their count, names, restitutions and derivatives),
/// read by the contact solves and simulateContact() beside the ConstrainedSystem; JointLimits and
/// RelativeAngleLimit implement it.
class UnilateralConstraints {
 public:
  virtual ~UnilateralConstraints() = default;

  /// Number of gaps ng ≥ 0 (size of g, λ_N).
  virtual int ng() const = 0;
  /// The name of gap k ∈ [0, ng) used in every message and report ("floor", "wall").
  virtual std::string gapName(int k) const = 0;
  /// Newton's restitution coefficient e_k of gap k; must lie in [0, 1] (validateGaps()).
  virtual double restitution(int k) const = 0;

  /// g(q, t). Sizes: q nq; g ng.
  virtual void gap(ConstVectorRef q, double t, VectorRef g) const = 0;
  /// J_N(q, t) = ∂g/∂q. Sizes: J_N ng×nq.
  virtual void gapJacobian(ConstVectorRef q, double t, MatrixRef J_N) const = 0;
  /// ∂g/∂t; zero (the default) for gaps fixed in space. Sizes: g_t ng.
  virtual void gapTimeDerivative(ConstVectorRef q, double t, VectorRef g_t) const;
  /// γ_N = g̈ − J_N q̈ (for gaps fixed in space J̇_N q̇). Sizes: q, v nq; gamma_N ng.
  virtual void gapBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma_N) const = 0;
};

/// Throws std::invalid_argument, naming the gap and the value, when a restitution lies outside
/// [0, 1] (or is not finite), when ng() < 0, or when a gap's Jacobian row at (q, t) is zero (such
/// a gap can neither be pushed open nor closed: no force can hold it). Sizes: q nq.
void validateGaps(const ConstrainedSystem& system, const UnilateralConstraints& gaps, ConstVectorRef q, double t);

/// The largest finite-difference error of J_N, ∂g/∂t and γ_N at (q, q̇, t), relative to each term's
/// size (central differences with step `h`): what checkModel() does for φ, for the gaps.
struct GapDerivativeCheck {
  double jacobian_error = 0.0;  ///< max |J_N − ∂g/∂q (differences)| / max(1, ‖J_N‖∞)
  double time_error = 0.0;      ///< the same for ∂g/∂t
  double bias_error = 0.0;      ///< the same for γ_N against the difference of ġ along (q̇, 1)
  int worst_gap = -1;           ///< the gap of the largest of the three
  /// True when all three are below tol.
  bool ok(double tol) const { return jacobian_error <= tol && time_error <= tol && bias_error <= tol; }
};

/// Compares J_N, ∂g/∂t and γ_N with central differences of g and of ġ = J_N q̇ + ∂g/∂t.
/// Sizes: q, v nq. Throws std::invalid_argument for wrong sizes.
GapDerivativeCheck checkGapDerivatives(const UnilateralConstraints& gaps, ConstVectorRef q, ConstVectorRef v,
                                       double t, double h = 1e-6);

/// One bound of a joint limit: a linear function of the coordinates c·q ≥ bound (lower) or
/// c·q ≤ bound (upper), for example qᵢ ≥ a, qᵢ ≤ b or a relative angle q₂ − q₁ ≤ b.
struct JointLimit {
  std::string name;        ///< reported as given; must be non-empty
  std::vector<int> index;  ///< the coordinates c involves
  std::vector<double> coefficient;  ///< their coefficients (the same length as index)
  double bound = 0.0;      ///< the value c·q may not pass (in the units of c·q)
  bool upper = false;      ///< false: c·q ≥ bound; true: c·q ≤ bound
  double restitution = 0.0;  ///< e ∈ [0, 1]

  /// qᵢ ≥ a.
  static JointLimit lower(std::string name, int i, double a, double e);
  /// qᵢ ≤ b.
  static JointLimit upperBound(std::string name, int i, double b, double e);
};

/// Joint limits as gaps: g = c·q − bound (lower) or bound − c·q (upper), constant J_N, γ_N = 0.
class JointLimits final : public UnilateralConstraints {
 public:
  /// Throws std::invalid_argument naming the limit for an empty name, an index outside [0, nq),
  /// index/coefficient lengths that differ, all-zero coefficients, a non-finite bound or a
  /// restitution outside [0, 1].
  JointLimits(int nq, std::vector<JointLimit> limits);

  int ng() const override { return static_cast<int>(limits_.size()); }
  std::string gapName(int k) const override;
  double restitution(int k) const override;
  void gap(ConstVectorRef q, double t, VectorRef g) const override;
  void gapJacobian(ConstVectorRef q, double t, MatrixRef J_N) const override;
  void gapBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma_N) const override;

  /// The limits as given, gap k being limits()[k].
  const std::vector<JointLimit>& limits() const { return limits_; }

 private:
  int nq_;
  std::vector<JointLimit> limits_;
};

}  // namespace kktdae::contact
