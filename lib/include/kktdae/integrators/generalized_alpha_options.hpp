#pragma once
/// @file
/// Options of the generalized-α and HHT-α integrators (Integrator::GeneralizedAlpha, Integrator::Hht).

#include <string_view>

namespace kktdae {

/// When the Newton iteration matrix of a generalized-α step is rebuilt (derivatives + LU).
enum class JacobianReuse {
  EveryIteration,  ///< full Newton: new derivatives and factorization at every iteration
  /// Once per step at the predictor; the step's later iterations reuse it unless one contracts
  /// the residual by less than slow_convergence_ratio, which rebuilds it at that iterate.
  EveryStep,
  /// Kept across steps while the iteration contracts fast (each residual below
  /// slow_convergence_ratio times the previous one); rebuilt when it does not, or when dt changes.
  UntilSlow,
};

/// "every_iteration" / "every_step" / "until_slow".
std::string_view toString(JacobianReuse reuse);

/// How the Newton iteration matrix [M + β′K + γ′C, −Jᵀ; J, 0] of a generalized-α step is stored
/// and factorized.
enum class IterationMatrix {
  /// Sparse when the model allows it (see Sparse) and nq ≥ KktOptions::sparse_min_coordinates
  /// (the rule of KktPath::Auto); Dense otherwise.
  Auto,
  /// Dense partial-pivoting LU of the (nq+nc)² matrix; K and C from DynamicsJacobian (nq column
  /// differences per matrix). Any model.
  Dense,
  /// A fixed compressed-column pattern factorized by KLU (symbolic analysis once per run, numeric
  /// refactorization per matrix); K = −Σᵢ λᵢ ∇²φᵢ from SparseDynamicsJacobian (colored
  /// differences of J: 3 + 2·colors model calls per matrix, 15 for a chain). Needs a sparse J, a
  /// constant diagonal M, h independent of (q, q̇), no inputs and scleronomic φ (the models
  /// where K, C reduce to that); otherwise construction throws std::invalid_argument.
  Sparse,
};

/// "auto" / "dense" / "sparse".
std::string_view toString(IterationMatrix matrix);

/// The parameters of the index-3 generalized-α step and its Newton (docs/integrators.md § generalized-α).
struct GeneralizedAlphaOptions {
  /// Spectral radius of the step at infinite frequency, ρ∞ ∈ [0, 1] (Integrator::GeneralizedAlpha):
  /// 1 keeps every frequency (no numerical damping), 0 annihilates the highest in one step. The
  /// Chung–Hulbert parameters α_m, α_f, β, γ follow from it. 0.8 is a common multibody default.
  double rho_inf = 0.8;
  /// α ∈ [−1/3, 0] of Integrator::Hht: α_m = 0, α_f = −α, β = (1−α)²/4, γ = ½ − α. α = 0 is the
  /// trapezoidal rule (no damping); its spectral radius at infinity is (1+α)/(1−α).
  double hht_alpha = -0.1;
  /// Newton stops when the scaled residual max(‖φ(qₙ₊₁)‖∞, min(β′‖D⁻¹r‖∞, β′‖Δq̈‖∞)) ≤ tolerance·s
  /// (tolerance > 0), r the equations of motion's residual, D = diag(M), β′ = β h² (1−α_f)/(1−α_m),
  /// Δq̈ the last Newton correction: all in position units (units of φ and of q), the position
  /// change the remaining residual is worth (on a stiff step the correction says it better).
  /// s = max(1, ‖qₙ₊₁‖∞, β′‖q̈ₙ₊₁‖∞, β′‖D⁻¹h‖∞) is the step's position scale: on a stiff step
  /// (β′|q̈| ≫ |q|) the residual cannot be computed more exactly than eps·s.
  double newton_tolerance = 1e-12;
  /// Newton iterations allowed per step (≥ 1); more fails the step (or halves it, see below).
  int newton_max_iterations = 25;
  JacobianReuse jacobian_reuse = JacobianReuse::EveryStep;  ///< when the Newton matrix is rebuilt
  /// EveryStep and UntilSlow: the contraction ratio (∈ (0, 1)) above which the matrix is rebuilt.
  double slow_convergence_ratio = 0.25;
  /// How many times a step whose Newton fails may be split in two halves (≥ 0; 0: the run fails
  /// at once). Each split is counted in Summary::notes.
  int max_step_halvings = 0;
  /// Dense LU or sparse KLU of the iteration matrix (see IterationMatrix); Summary::notes says
  /// which one ran. Both give the same step to round-off.
  IterationMatrix iteration_matrix = IterationMatrix::Auto;

  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
};

/// The four parameters of one generalized-α step (Chung & Hulbert 1993; Arnold & Brüls 2007).
struct GeneralizedAlphaParameters {
  ///@{
  /// α_m, α_f (the weights of the acceleration and force balance), β and γ (Newmark's); the
  /// defaults are the trapezoidal rule.
  double alpha_m = 0, alpha_f = 0, beta = 0.25, gamma = 0.5;
  ///@}
};

/// Chung–Hulbert parameters for ρ∞ ∈ [0, 1]: α_m = (2ρ∞−1)/(ρ∞+1), α_f = ρ∞/(ρ∞+1),
/// γ = ½ + α_f − α_m, β = ¼(γ + ½)². Throws std::invalid_argument outside [0, 1].
GeneralizedAlphaParameters chungHulbertParameters(double rho_inf);
/// HHT-α parameters for α ∈ [−1/3, 0]: α_m = 0, α_f = −α, β = (1−α)²/4, γ = ½ − α.
GeneralizedAlphaParameters hhtParameters(double alpha);

}  // namespace kktdae
