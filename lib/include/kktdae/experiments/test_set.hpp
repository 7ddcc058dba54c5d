#pragma once
/// @file
/// The IVP Test Set's constrained-mechanics problems run and scored as the Test Set scores
/// solvers: one run to t_end, its end state against the published reference (scd, mescd), and
/// a work–precision ladder of every integrator over tolerances (adaptive) or step counts
/// (fixed-step). docs/benchmarks.md has the results and the comparison with the published ones.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/models/reference_solution.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// The Test Set problems kktdae ships.
enum class TestSetProblem {
  Andrews,  ///< "andrews": Andrews' squeezing mechanism (AndrewsSqueezer), t ∈ [0, 0.03]
  CarAxis,  ///< "caraxis": the car axis (CarAxis), t ∈ [0, 3]
  /// "heavy_top": the heavy top of Brüls, Cardona and Arnold built from a body
  /// (multibody/heavy_top_mechanism.hpp), t ∈ [0, 2], scored on the displacement R X − X.
  HeavyTop,
  /// "andrews_bodies": Andrews' squeezer built from its 7 bodies and 10 joints
  /// (multibody/andrews_mechanism.hpp), t ∈ [0, 0.03], scored on the Test Set's 7 angles.
  AndrewsBodies,
};

/// "andrews" / "caraxis" / "heavy_top" / "andrews_bodies".
std::string_view toString(TestSetProblem problem);
/// Parses a name of toString(); throws std::invalid_argument listing the choices otherwise.
TestSetProblem parseTestSetProblem(std::string_view name);
/// Every problem, in the order of the enum.
const std::vector<TestSetProblem>& allTestSetProblems();

/// A problem ready to run: the model, its consistent start, its reference at t_end.
struct TestSetCase {
  TestSetProblem problem = TestSetProblem::Andrews;  ///< which problem
  std::shared_ptr<const ConstrainedSystem> system;  ///< the model, with the Test Set's parameters
  ConsistentStart start;  ///< the consistent initial values at t = 0
  ReferenceSolution reference;  ///< the reference end state at t_end and how it is scored
  std::string title;  ///< e.g. "Andrews' squeezing mechanism (IVP Test Set), t in [0, 0.03] s"
  /// What is scored when it is not q's first reference.scored_components entries: the end
  /// state's q mapped to the scored values (heavy_top: the displacement), their reference
  /// values and the name metrics.json gives them at its top level. Empty: q is scored.
  ///@{
  std::function<Vector(ConstVectorRef q)> scored;
  Vector scored_reference;
  std::string scored_name;
  ///@}
};

/// Builds the model with the Test Set's parameters, its start and its reference.
TestSetCase makeTestSetCase(TestSetProblem problem);

/// One run of a problem from its start to its t_end.
struct TestSetRunOptions {
  Integrator integrator = Integrator::IdaIndex1;  ///< the integrator of the run
  /// Tolerances of the adaptive integrators (> 0). The Test Set's published runs take
  /// rtol = atol; atol/rtol is also the absolute floor of mescd (fixed-step runs included).
  double rtol = 1e-7;
  double atol = 1e-7;  ///< absolute tolerance (> 0), see rtol
  /// Fixed-step integrators: number of steps over [0, t_end] (≥ 1), dt = t_end / fixed_steps.
  long fixed_steps = 1000;
  /// Fixed-step integrators only; the adaptive ones solve their formulation without feedback
  /// (cvode_*, ida_index1: the index-1 form as it is; ida_ggl: GGL holds φ and φ̇ itself).
  Stabilization stabilization = Stabilization::projection();
  /// Cap on the work of a run: the most fixed steps accepted (a larger fixed_steps is refused),
  /// and the adaptive solvers' internal steps (their mxstep over the one output interval).
  long max_steps = 1000000;
  KktOptions kkt;  ///< options of the run's KKT solves
  /// ρ∞ (generalized_alpha), α (hht) and their Newton; ignored by the other integrators.
  GeneralizedAlphaOptions generalized_alpha;
  /// Forwarded to the run (SimulationOptions::interrupt): once set, the run ends Interrupted at
  /// its next step (fixed-step) or at t_end (adaptive: one output interval), not reaching the end.
  const std::atomic<bool>* interrupt = nullptr;
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// What one run gives: the setting, the library's Summary, the end state and its scores.
struct TestSetRunResult {
  Integrator integrator = Integrator::IdaIndex1;  ///< the integrator that ran
  std::string formulation;  ///< describeFormulation() of the run
  ///@{
  double rtol = 0.0, atol = 0.0;  ///< as asked (adaptive); the mescd floor for all
  ///@}
  double dt = 0.0;          ///< fixed-step size [s]; 0 for adaptive runs
  Summary summary;  ///< the library's account of the run: status, message, counters
  /// The run succeeded and its last observed state is at t_end; only then are q, v, λ the end
  /// state and scd, mescd defined.
  bool reached_end = false;
  ///@{
  Vector q, v, lambda;   ///< the last observed state; λ in our sign (M q̈ + h = Jᵀλ)
  ///@}
  Vector lambda_source;  ///< λ in the Test Set's sign (reference.lambda_to_source · λ)
  double scd = 0.0;      ///< significantCorrectDigits of the reference's scored components
  double mescd = 0.0;    ///< mixedErrorSignificantDigits of the same, floor atol/rtol
  double scd_velocity = 0.0;  ///< scd of q̇ (all components), for information (q-scored problems)
  Vector scored;  ///< TestSetCase::scored of the end state (empty when q is scored)
};

/// Runs `problem` once. Never throws for numerical trouble (a failed run is a result with its
/// Summary's status and message); throws std::invalid_argument for invalid options, for a
/// fixed-step count over max_steps, or when the integrator refuses the problem.
TestSetRunResult runTestSet(const TestSetCase& problem, const TestSetRunOptions& options);

/// A work–precision ladder: every listed integrator at every rung of its ladder.
struct TestSetLadderOptions {
  /// Integrators to run; empty means allIntegrators() (so integrators added later join).
  std::vector<Integrator> integrators;
  /// rtol = atol of the adaptive integrators' rungs (each > 0).
  std::vector<double> tolerances = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12};
  /// Step counts of the fixed-step rungs (each ≥ 1); rungs over max_steps are skipped.
  std::vector<long> fixed_steps = {300, 1000, 3000, 10000, 30000, 100000, 300000};
  Stabilization fixed_stabilization = Stabilization::projection();  ///< of the fixed-step rungs
  long max_steps = 300000;  ///< TestSetRunOptions::max_steps of every rung
  /// Runs per rung; the wall time reported is their median (the upper one of an even count).
  int timing_repeats = 1;
  KktOptions kkt;  ///< TestSetRunOptions::kkt of every rung
  /// TestSetRunOptions::generalized_alpha of every generalized_alpha and hht rung.
  GeneralizedAlphaOptions generalized_alpha;
  /// Forwarded to every rung (TestSetRunOptions::interrupt): once set, the ladder ends after the
  /// rung under way and returns the rows finished before it (the stopped rung is no measurement).
  const std::atomic<bool>* interrupt = nullptr;
  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
};

/// One rung: its result, or why the integrator does not apply (refused with invalid_argument:
/// then result.summary.status is NotRun and refusal holds the reason).
struct TestSetLadderRow {
  TestSetRunResult result;  ///< the rung's run (its setting even when refused)
  std::string refusal;     ///< empty when it ran
  double wall_seconds = 0.0;  ///< median over the repeats
};

/// Runs the ladder serially (the wall times are measurements), rows grouped by integrator in
/// the order of options.integrators, rungs in the order given. Throws std::invalid_argument for
/// invalid options only: a failing or refusing integrator is a row.
std::vector<TestSetLadderRow> runTestSetLadder(const TestSetCase& problem, const TestSetLadderOptions& options);

}  // namespace kktdae
