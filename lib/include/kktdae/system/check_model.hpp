#pragma once
/// @file
/// checkModel(): the first thing to run on a new model. One call evaluates every method of a
/// ConstrainedSystem at a few states and returns one report whose findings each name the method,
/// the entry, the value expected and the value got, and the state.
///
/// What it checks, at each state (docs/defining-models.md section 4):
/// - sizes: nq ≥ 1, nc ≥ 0, nu ≥ 0, 0 ≤ jacobianNonZeros() ≤ nc·nq;
/// - every output of the documented size is written, with a value that does not depend on what
///   the output held before, and nothing is written past its end. Outputs are filled with NaN
///   sentinels before each call (and again with a second sentinel), and q and v are followed in
///   memory by NaN, so the mistakes a release build lets through without Eigen's assertions — a
///   comma initializer with too few entries, an expression of the wrong shape assigned into J —
///   show up as unwritten or non-finite entries;
/// - M symmetric and positive definite on null(J) (a general M that is singular elsewhere, as
///   with Euler parameters, passes: the block form solves it); massDiagonal() equal to diag(M) for
///   diagonal models, whose entries must all be > 0;
///   the declared MassStructure true (Diagonal: no off-diagonal entries; ConstantDiagonal: the
///   same diagonal at every state);
/// - J, ∂φ/∂t, γ and the sparse J (pattern and values) against central differences, through
///   checkDerivatives() (derivative_check.hpp);
/// - kineticEnergy(q, v) = ½ q̇ᵀ M q̇;
/// - opt-in (ModelCheckOptions::check_conservative_bias): h(q, 0, t) = ∇V(q, t) by central
///   differences of potentialEnergy(), for models whose forces at rest are all conservative;
/// - inputMap() written when nu > 0;
/// - evaluateTerms(), the fused call the solver makes, against the per-term methods it stands
///   for, term by term (h, φ, J dense and as sparse values, γ, ∂φ/∂t): every output written and
///   only it, as above, and each entry equal to the per-term method's up to round-off
///   (ModelCheckOptions::terms_relative_tolerance). Checked where those per-term outputs were
///   clean, so a mistake in a per-term method is named once, under its own name.
///
/// Allocates and is O(nq³) per state (M's factorization): meant for model development and tests.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// What a finding says is wrong.
enum class ModelProblem {
  InvalidSize,            ///< nq < 1, nc < 0, nu < 0, or jacobianNonZeros() outside [0, nc·nq]
  Threw,                  ///< the method threw; `detail` holds the exception's text
  Unwritten,              ///< an entry of the documented size was left unwritten (still the sentinel)
  DependsOnOutput,        ///< the value depends on what the output held before the call (e.g. `+=`)
  WritesPastEnd,          ///< the method wrote beyond the documented size of its output
  NonFinite,              ///< a written entry is NaN or ±∞ (also what reading past the end of q or v gives)
  MassAsymmetric,         ///< M(i, j) ≠ M(j, i)
  MassNotPositiveDefinite,///< M is not positive definite on null(J) (`got` is the smallest eigenvalue of ZᵀMZ, Z an
                          ///< orthonormal basis of null(J); a diagonal M names its entry ≤ 0)
  MassDiagonalMismatch,   ///< massDiagonal() differs from the diagonal of massMatrix()
  MassStructureViolated,  ///< the declared MassStructure is not true
  JacobianMismatch,       ///< J differs from the central difference of φ in q
  TimeDerivativeMismatch, ///< ∂φ/∂t differs from the central difference of φ in t
  GammaMismatch,          ///< γ differs from the derivative of J q̇ + ∂φ/∂t along the motion
  SparsePatternInvalid,   ///< a pattern position is out of range or repeats
  SparseValuesMismatch,   ///< the sparse J differs from the dense J
  KineticEnergyMismatch,  ///< kineticEnergy(q, v) ≠ ½ q̇ᵀ M q̇
  BiasNotConservative,    ///< h(q, 0, t) ≠ ∇V(q, t) (only with check_conservative_bias)
  EvaluateTermsMismatch,  ///< an entry written by evaluateTerms() differs from its per-term method's
};

/// Stable lower-case name of a problem ("unwritten", "jacobian_mismatch", …).
std::string_view toString(ModelProblem problem);

/// One thing checkModel() found wrong.
struct ModelFinding {
  ModelProblem problem = ModelProblem::Unwritten;  ///< what is wrong
  /// The model method at fault, as declared in ConstrainedSystem ("constraintJacobian", "bias"),
  /// the size accessor ("nq") for InvalidSize, "checkDerivatives" for an exception during the
  /// finite differences, and "constraintJacobianPattern (rows)" or "(cols)" for an output issue
  /// of one of the pattern's two outputs. Findings of evaluateTerms() name the term by its
  /// ModelTermsOutput field: "evaluateTerms (h)", "(phi)", "(J)", "(jacobian_values)",
  /// "(gamma)", "(phi_t)"; "evaluateTerms" alone when the call threw.
  std::string method;
  /// The entry: the row (the index, for vector outputs) and the column (−1 for vector outputs);
  /// both −1 for findings about the whole output (a general M not positive definite, a kinetic
  /// energy, an exception) and for sizes.
  /// WritesPastEnd gives the first offset written past the end as `row` (counted from the start
  /// of the output, so row ≥ the output's size).
  ///@{
  int row = -1;
  int col = -1;
  ///@}
  /// What the entry should be (a finite difference, the transposed entry, the other method's
  /// value; NaN when only "a written, finite value" is expected) and what the model gave.
  ///@{
  double expected = 0.0;
  double got = 0.0;
  ///@}
  /// Index into ModelCheckReport::states (−1 for findings independent of the state: sizes, the
  /// sparse pattern) and a copy of that state.
  ///@{
  int state_index = -1;
  State state;
  ///@}
  /// What `expected` is, in words, or the exception's text.
  std::string detail;

  /// One line: method, entry, expected vs got, the state, detail.
  std::string describe() const;
};

/// Tolerances, step and sampling of checkModel(). The defaults suit models in SI units with
/// O(1) coordinates; a comparison fails when |got − expected| > absolute_tolerance +
/// relative_tolerance · (largest magnitude of the quantity compared, over its entries).
struct ModelCheckOptions {
  /// Relative part of the allowed deviation. Central differences with the default step are good to
  /// about 1e-10 relative on smooth models; 1e-7 leaves three orders of margin and still catches
  /// any real mistake (a wrong sign or a dropped term is O(1) relative).
  double relative_tolerance = 1e-7;
  /// Absolute part, in the quantity's own units: what a quantity of size ~0 may deviate by.
  double absolute_tolerance = 1e-7;
  /// Central-difference step relative to max(1, |x|), as DerivativeCheckOptions::relative_step.
  double relative_step = 6e-6;
  /// Relative part of the allowed deviation of evaluateTerms() from the per-term methods (the
  /// absolute part is absolute_tolerance). Both are exact evaluations of the same terms, so they
  /// may differ only by the round-off of a different order of operations: a few ulps of the
  /// intermediates, ~nq·ε for a sum over the coordinates (2e-13 at nq = 1000). 1e-10 of the
  /// term's largest entry leaves that margin and still names a wrong term far smaller than the
  /// finite-difference checks can see (they need relative_tolerance, 1e-7).
  double terms_relative_tolerance = 1e-10;
  /// Compare h(q, 0, t) with ∇V(q, t). Off by default: it holds only when every force at rest is
  /// the gradient of potentialEnergy() (gravity, springs); a model with a driving torque or force
  /// written into h (Andrews' squeezer) is not conservative. Inputs Sᵀu are not part of h.
  bool check_conservative_bias = false;
  /// How many states to draw when the caller gives none: q and q̇ entries uniform in
  /// [−random_scale, random_scale], t uniform in [0, random_scale]. At least 2, so that a
  /// ConstantDiagonal mass is compared across configurations.
  int random_states = 3;
  /// Scale of the random states (see random_states) [the coordinates' units].
  double random_scale = 1.0;
  /// Seed of the random states (std::mt19937_64): the same seed draws the same states everywhere.
  std::uint64_t random_seed = 20261201;
  /// At most this many findings of one (problem, method) pair are kept; the rest are counted in
  /// ModelCheckReport::omitted_findings (a forgotten row of a 1000-link chain is one mistake).
  int max_findings_per_kind = 5;

  /// Throws std::invalid_argument naming the field: tolerances (terms_relative_tolerance
  /// included) finite and ≥ 0, relative_step
  /// finite and > 0, random_states ≥ 2, random_scale finite and > 0, max_findings_per_kind ≥ 1.
  void validate() const;
};

/// Everything checkModel() found, state by state.
struct ModelCheckReport {
  std::string model;                  ///< system.name()
  std::vector<State> states;          ///< the states checked (the caller's, or the random ones)
  std::vector<ModelFinding> findings; ///< in the order found: state by state, method by method
  long omitted_findings = 0;          ///< findings beyond max_findings_per_kind, not listed

  /// True when nothing was found.
  bool ok() const { return findings.empty() && omitted_findings == 0; }
  /// "checkModel(name): N states, ok" or that line followed by one line per finding.
  std::string describe() const;
};

/// Checks `system` at each of `states` (see the file comment for what). The states need not
/// satisfy φ = 0 or φ̇ = 0 — a generic state off the manifold, with t ≠ 0, checks more terms —
/// but must be where the model is defined. An empty list draws options.random_states random
/// states. Never throws for the model's mistakes, including exceptions from its methods: they
/// are findings. Throws std::invalid_argument for invalid options and for a state whose q or v
/// does not have nq entries or is not finite ("states[1].q: size 2, expected 3").
ModelCheckReport checkModel(const ConstrainedSystem& system, const std::vector<State>& states = {},
                            const ModelCheckOptions& options = {});

}  // namespace kktdae
