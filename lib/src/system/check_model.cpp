#include "kktdae/system/check_model.hpp"

#include <spdlog/spdlog.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include "kktdae/core/checks.hpp"
#include "kktdae/system/derivative_check.hpp"
#include "kkt/null_space_mass.hpp"
#include "system/entry_summaries.hpp"
#include "system/output_probe.hpp"

namespace kktdae {
namespace {

using detail::kNaN;
using detail::largestMagnitude;
using detail::PaddedInput;
using detail::ProbeIssue;

constexpr double kEps = std::numeric_limits<double>::epsilon();

/// Collects the findings, keeping at most max_findings_per_kind of each (problem, method).
class Findings {
 public:
  Findings(ModelCheckReport& report, const ModelCheckOptions& options) : report_(report), options_(options) {}

  void add(ModelFinding finding) {
    int& count = counts_[{finding.problem, finding.method}];
    if (count >= options_.max_findings_per_kind) {
      ++report_.omitted_findings;
      return;
    }
    ++count;
    report_.findings.push_back(std::move(finding));
  }

 private:
  ModelCheckReport& report_;
  const ModelCheckOptions& options_;
  std::map<std::pair<ModelProblem, std::string>, int> counts_;
};

/// The checks at one state: the model, where, and where findings go.
class StateCheck {
 public:
  StateCheck(const ConstrainedSystem& system, const ModelCheckOptions& options, Findings& findings, int index,
             const State& state)
      : system_(system), options_(options), findings_(findings), index_(index), state_(state) {}

  /// A finding at this state (state_index −1 for the state-independent ones).
  void add(ModelProblem problem, const std::string& method, int row, int col, double expected, double got,
           std::string detail, bool at_state = true) {
    ModelFinding finding{problem, method, row, col, expected, got, at_state ? index_ : -1, {}, std::move(detail)};
    if (at_state) finding.state = state_;
    findings_.add(std::move(finding));
  }

  /// Turns a probe's issues into findings of `method` (an output of rows × cols; vectors have
  /// cols == 1 and are named by index only). Returns true when the output was clean.
  bool report(const std::vector<ProbeIssue>& issues, const std::string& method, Eigen::Index rows,
              Eigen::Index cols, bool is_matrix, bool at_state = true) {
    for (const ProbeIssue& issue : issues) {
      const int row = rows > 0 ? static_cast<int>(issue.entry % rows) : -1;
      const int col = is_matrix && rows > 0 ? static_cast<int>(issue.entry / rows) : -1;
      switch (issue.kind) {
        case ProbeIssue::Kind::Threw:
          add(ModelProblem::Threw, method, -1, -1, kNaN, kNaN, issue.message, at_state);
          break;
        case ProbeIssue::Kind::Unwritten:
          add(ModelProblem::Unwritten, method, row, col, kNaN, issue.first,
              "left unwritten: still the NaN the output was filled with before the call", at_state);
          break;
        case ProbeIssue::Kind::DependsOnOutput:
          add(ModelProblem::DependsOnOutput, method, row, col, issue.second, issue.first,
              "the value depends on what the output held before the call (filled with NaN: got; filled with "
              "another sentinel: expected); write the entry instead of updating it",
              at_state);
          break;
        case ProbeIssue::Kind::NonFinite:
          add(ModelProblem::NonFinite, method, row, col, kNaN, issue.first,
              "not finite (reading past the end of q or v gives NaN here: an expression of the wrong shape?)",
              at_state);
          break;
        case ProbeIssue::Kind::WritesPastEnd:
          add(ModelProblem::WritesPastEnd, method, static_cast<int>(issue.entry), -1, kNaN, issue.first,
              "written past the end of the output, which has " + std::to_string(rows * cols) +
                  " entries; row is the offset from its start",
              at_state);
          break;
      }
    }
    return issues.empty();
  }

  /// Probes a vector output of `size` entries; `call` evaluates the method into the given map.
  bool vector(const std::string& method, Eigen::Index size, Vector& value,
              const std::function<void(VectorRef)>& call) {
    Matrix out;
    const auto issues = detail::probeOutput(size, 1, out, [&](double* data) {
      Eigen::Map<Vector> map(data, size);
      call(map);
    });
    value = out.col(0);
    return report(issues, method, size, 1, false);
  }

  /// Probes a matrix output of rows × cols.
  bool matrix(const std::string& method, Eigen::Index rows, Eigen::Index cols, Matrix& value,
              const std::function<void(MatrixRef)>& call) {
    const auto issues = detail::probeOutput(rows, cols, value, [&](double* data) {
      Eigen::Map<Matrix> map(data, rows, cols);
      call(map);
    });
    return report(issues, method, rows, cols, true);
  }

  /// Calls a scalar method; a throw or a non-finite value is a finding. Returns NaN then.
  double scalar(const std::string& method, const std::function<double()>& call) {
    double value = kNaN;
    try {
      value = call();
    } catch (const std::exception& error) {
      add(ModelProblem::Threw, method, -1, -1, kNaN, kNaN, error.what());
      return kNaN;
    }
    if (!std::isfinite(value)) {
      add(ModelProblem::NonFinite, method, -1, -1, kNaN, value, "not finite");
      return kNaN;
    }
    return value;
  }

  /// Whether |got − expected| is beyond the tolerance for a quantity of magnitude `scale`.
  bool beyond(double expected, double got, double scale, double extra = 0.0) const {
    return beyondRelative(expected, got, scale, options_.relative_tolerance, extra);
  }

  /// As beyond(), with the relative part `relative` instead of options().relative_tolerance.
  bool beyondRelative(double expected, double got, double scale, double relative, double extra = 0.0) const {
    const double error = std::abs(got - expected);
    return !(error <= options_.absolute_tolerance + relative * scale + extra);
  }

  const ConstrainedSystem& system() const { return system_; }
  const ModelCheckOptions& options() const { return options_; }
  const State& state() const { return state_; }
  int index() const { return index_; }

 private:
  const ConstrainedSystem& system_;
  const ModelCheckOptions& options_;
  Findings& findings_;
  int index_;
  const State& state_;
};

/// What the probes at one state returned, for the comparisons after them.
struct Outputs {
  Matrix M;
  Vector d;  // massDiagonal(), diagonal models only
  bool M_clean = false, d_clean = false;
};

/// What the per-term methods wrote at one state, and whether each output was clean: what
/// evaluateTerms() must reproduce.
struct PerTermOutputs {
  Vector h, phi, gamma, phi_t, values;  // values: the sparse J's, when the model has one
  Matrix J;
  bool h_clean = false, phi_clean = false, J_clean = false, values_clean = false, gamma_clean = false,
       phi_t_clean = false;
};

/// evaluateTerms() asked for the dense J (`sparse` false) or for J's sparse values, term by term:
/// each output probed as the per-term ones are (the other outputs in scratch storage), then
/// compared entry by entry with the per-term method's value. Skipped unless every per-term output
/// it is compared with was clean: the default evaluateTerms() calls those methods, and would only
/// repeat their findings under another name.
void checkEvaluateTerms(StateCheck& check, ConstVectorRef q, ConstVectorRef v, const PerTermOutputs& per_term,
                        bool sparse) {
  if (!(per_term.h_clean && per_term.phi_clean && per_term.gamma_clean && per_term.phi_t_clean &&
        (sparse ? per_term.values_clean : per_term.J_clean))) {
    return;
  }
  const ConstrainedSystem& system = check.system();
  const Eigen::Index nq = system.nq(), nc = system.nc(), nnz = sparse ? system.jacobianNonZeros() : 0;
  const Eigen::Index J_rows = sparse ? 0 : nc, J_cols = sparse ? 0 : nq;  // 0×0: the dense J not wanted
  const double t = check.state().t;
  const std::string asked = sparse ? "asked for J's sparse values" : "asked for the dense J";
  Vector h(nq), phi(nc), gamma(nc), phi_t(nc), values(nnz);
  Matrix J(J_rows, J_cols);
  try {  // one plain call first, so that a throwing override is one finding, not one per term
    ModelTermsOutput out{h, phi, J, values, gamma, phi_t};
    system.evaluateTerms(q, v, t, out);
  } catch (const std::exception& error) {
    check.add(ModelProblem::Threw, "evaluateTerms", -1, -1, kNaN, kNaN, asked + ": " + error.what());
    return;
  }

  enum Which { kH, kPhi, kJacobian, kGamma, kPhiT };
  struct Term {
    Which which;
    const char* field;     // the ModelTermsOutput member
    const char* per_term;  // the method it must agree with
    Eigen::Index rows, cols;
    const double* expected;
  };
  const Term terms[] = {
      {kH, "h", "bias()", nq, 1, per_term.h.data()},
      {kPhi, "phi", "constraint()", nc, 1, per_term.phi.data()},
      sparse ? Term{kJacobian, "jacobian_values", "constraintJacobianValues()", nnz, 1, per_term.values.data()}
             : Term{kJacobian, "J", "constraintJacobian()", nc, nq, per_term.J.data()},
      {kGamma, "gamma", "constraintBias()", nc, 1, per_term.gamma.data()},
      {kPhiT, "phi_t", "constraintTimeDerivative()", nc, 1, per_term.phi_t.data()},
  };
  const double relative = check.options().terms_relative_tolerance;
  for (const Term& term : terms) {
    const std::string method = std::string("evaluateTerms (") + term.field + ")";
    const bool is_matrix = term.which == kJacobian && !sparse;
    Matrix got;
    const auto issues = detail::probeOutput(term.rows, term.cols, got, [&](double* data) {
      Eigen::Map<Vector> probed(data, term.rows * term.cols);
      Eigen::Map<Matrix> probed_J(data, J_rows, J_cols);
      auto pick = [&](Which which, Vector& scratch) {
        return term.which == which ? VectorRef(probed) : VectorRef(scratch);
      };
      ModelTermsOutput out{pick(kH, h),
                           pick(kPhi, phi),
                           is_matrix ? MatrixRef(probed_J) : MatrixRef(J),
                           term.which == kJacobian && sparse ? VectorRef(probed) : VectorRef(values),
                           pick(kGamma, gamma),
                           pick(kPhiT, phi_t)};
      system.evaluateTerms(q, v, t, out);
    });
    if (!check.report(issues, method, term.rows, term.cols, is_matrix)) continue;
    const Eigen::Map<const Vector> expected(term.expected, term.rows * term.cols);
    const Eigen::Map<const Vector> fused(got.data(), got.size());
    const double scale = std::max(largestMagnitude(expected), largestMagnitude(fused));
    for (Eigen::Index i = 0; i < expected.size(); ++i) {
      if (!check.beyondRelative(expected[i], fused[i], scale, relative)) continue;
      const int row = static_cast<int>(is_matrix ? i % term.rows : i);
      const int col = is_matrix ? static_cast<int>(i / term.rows) : -1;
      check.add(ModelProblem::EvaluateTermsMismatch, method, row, col, expected[i], fused[i],
                std::string("the fused call's value (got) must equal ") + term.per_term + "'s (expected) up to " +
                    "round-off, " + asked);
    }
  }
}

/// Size accessors: a finding per invalid one. Returns false when nothing else can be checked.
bool checkSizes(const ConstrainedSystem& system, StateCheck& check) {
  const int nq = system.nq(), nc = system.nc(), nu = system.nu(), nnz = system.jacobianNonZeros();
  bool valid = true;
  if (nq < 1) {
    check.add(ModelProblem::InvalidSize, "nq", -1, -1, 1.0, nq, "nq() must be at least 1", false);
    valid = false;
  }
  if (nc < 0) {
    check.add(ModelProblem::InvalidSize, "nc", -1, -1, 0.0, nc, "nc() must be at least 0", false);
    valid = false;
  }
  if (nu < 0) {
    check.add(ModelProblem::InvalidSize, "nu", -1, -1, 0.0, nu, "nu() must be at least 0", false);
    valid = false;
  }
  if (valid && (nnz < 0 || static_cast<long>(nnz) > static_cast<long>(nc) * nq)) {
    check.add(ModelProblem::InvalidSize, "jacobianNonZeros", -1, -1, static_cast<double>(nc) * nq, nnz,
              "jacobianNonZeros() must lie in [0, nc·nq]", false);
    valid = false;
  }
  return valid;
}

/// M symmetric, positive definite (a general M: on null(J) at least, when J is clean), and as
/// structured as declared; massDiagonal() equal to diag(M).
void checkMass(StateCheck& check, const Outputs& out, const Matrix* J, const Vector*& constant_diagonal,
               int& constant_index) {
  const ConstrainedSystem& system = check.system();
  const int nq = system.nq();
  if (!out.M_clean) return;
  const Matrix& M = out.M;
  const double scale = largestMagnitude(M);
  const MassStructure structure = system.massStructure();
  bool off_diagonal_found = false;
  for (int j = 0; j < nq; ++j) {
    for (int i = 0; i < j; ++i) {
      if (check.beyond(M(j, i), M(i, j), scale)) {
        check.add(ModelProblem::MassAsymmetric, "massMatrix", i, j, M(j, i), M(i, j),
                  "M must be symmetric: expected is M(" + std::to_string(j) + ", " + std::to_string(i) + ")");
      }
      if (structure != MassStructure::General) {
        for (const auto& [r, c] : {std::pair{i, j}, std::pair{j, i}}) {
          if (check.beyond(0.0, M(r, c), scale)) {
            off_diagonal_found = true;
            check.add(ModelProblem::MassStructureViolated, "massMatrix", r, c, 0.0, M(r, c),
                      std::string("massStructure() is ") +
                          (structure == MassStructure::Diagonal ? "Diagonal" : "ConstantDiagonal") +
                          ": off-diagonal entries must be 0");
          }
        }
      }
    }
  }
  if (structure != MassStructure::General && !off_diagonal_found) {
    // Diagonal as declared: positive definite iff every diagonal entry is > 0, without the O(nq³)
    // factorization (a 1000-link chain has nq = 3000).
    Eigen::Index smallest_at = 0;
    const double smallest = nq > 0 ? M.diagonal().minCoeff(&smallest_at) : 1.0;
    if (!(smallest > 0.0)) {
      check.add(ModelProblem::MassNotPositiveDefinite, "massMatrix", static_cast<int>(smallest_at),
                static_cast<int>(smallest_at), 0.0, smallest,
                "M must be positive definite (M is diagonal: its eigenvalues are its diagonal entries)");
    }
  } else if (const Matrix symmetric = 0.5 * (M + M.transpose());
             Eigen::LLT<Matrix>(symmetric).info() != Eigen::Success) {
    // What the block solve needs is ZᵀMZ ≻ 0 on null(J) (Euler parameters pass it); without a
    // clean J only M ≻ 0 can be asked for.
    const double reduced = J != nullptr ? detail::smallestNullSpaceMassEigenvalue(symmetric, *J) : kNaN;
    if (!(reduced > 0.0)) {
      const Eigen::SelfAdjointEigenSolver<Matrix> eigen(symmetric, Eigen::EigenvaluesOnly);
      const double smallest = eigen.info() == Eigen::Success ? eigen.eigenvalues()[0] : kNaN;
      if (J != nullptr) {
        check.add(ModelProblem::MassNotPositiveDefinite, "massMatrix", -1, -1, 0.0, reduced,
                  "M must be positive definite on null(J) (the eigenvalue is that of ZᵀMZ, Z an orthonormal basis "
                  "of null(J); M's own smallest is " + formatDouble(smallest) + ")");
      } else {
        check.add(ModelProblem::MassNotPositiveDefinite, "massMatrix", -1, -1, 0.0, smallest,
                  "M must be positive definite (the eigenvalue is that of (M + Mᵀ)/2; J is not clean, so null(J) "
                  "could not be tested)");
      }
    }
  }
  if (structure == MassStructure::General || !out.d_clean) return;
  const double d_scale = std::max(scale, largestMagnitude(out.d));
  for (int i = 0; i < nq; ++i) {
    if (check.beyond(M(i, i), out.d[i], d_scale)) {
      check.add(ModelProblem::MassDiagonalMismatch, "massDiagonal", i, -1, M(i, i), out.d[i],
                "must equal the diagonal of massMatrix()");
    }
  }
  if (structure != MassStructure::ConstantDiagonal) return;
  if (constant_diagonal == nullptr) {
    constant_diagonal = &out.d;
    constant_index = check.index();
    return;
  }
  for (int i = 0; i < nq; ++i) {
    if (check.beyond((*constant_diagonal)[i], out.d[i], d_scale)) {
      check.add(ModelProblem::MassStructureViolated, "massDiagonal", i, -1, (*constant_diagonal)[i], out.d[i],
                "massStructure() is ConstantDiagonal: expected is the value at states[" +
                    std::to_string(constant_index) + "]");
    }
  }
}

/// J, ∂φ/∂t, γ and the sparse J against finite differences, through checkDerivatives().
void checkDerivativeFindings(StateCheck& check, ConstVectorRef q, ConstVectorRef v, const IndexVector& rows,
                             const IndexVector& cols, bool& pattern_reported) {
  DerivativeCheckOptions derivative_options;
  derivative_options.relative_step = check.options().relative_step;
  DerivativeCheckReport r;
  try {
    r = checkDerivatives(check.system(), q, v, check.state().t, derivative_options);
  } catch (const std::exception& error) {
    check.add(ModelProblem::Threw, "checkDerivatives", -1, -1, kNaN, kNaN,
              std::string("a method threw during the finite differences: ") + error.what());
    return;
  }
  const DerivativeDeviation& J = r.jacobian_worst;
  if (J.row >= 0 && check.beyond(J.expected, J.got, std::max(r.jacobian_scale, std::abs(J.expected)))) {
    check.add(ModelProblem::JacobianMismatch, "constraintJacobian", J.row, J.col, J.expected, J.got,
              "central difference of constraint() in q[" + std::to_string(J.col) + "] (the worst entry)");
  }
  const DerivativeDeviation& phi_t = r.time_derivative_worst;
  if (phi_t.row >= 0 &&
      check.beyond(phi_t.expected, phi_t.got, std::max(r.time_derivative_scale, std::abs(phi_t.expected)))) {
    check.add(ModelProblem::TimeDerivativeMismatch, "constraintTimeDerivative", phi_t.row, -1, phi_t.expected,
              phi_t.got, "central difference of constraint() in t (the worst entry)");
  }
  const DerivativeDeviation& gamma = r.bias_worst;
  if (gamma.row >= 0 && check.beyond(gamma.expected, gamma.got, std::max(r.bias_scale, std::abs(gamma.expected)))) {
    check.add(ModelProblem::GammaMismatch, "constraintBias", gamma.row, -1, gamma.expected, gamma.got,
              "derivative of J q̇ + ∂φ/∂t along (q + s q̇, t + s), by central differences (the worst entry)");
  }
  if (r.sparse_pattern_bad_entry >= 0) {
    if (!pattern_reported) {
      const int k = r.sparse_pattern_bad_entry;
      check.add(ModelProblem::SparsePatternInvalid, "constraintJacobianPattern", rows[k], cols[k], kNaN, k,
                "pattern entry " + std::to_string(k) + " (got) is out of range or repeats an earlier position",
                false);
      pattern_reported = true;
    }
  } else {
    const DerivativeDeviation& sparse = r.sparse_jacobian_worst;
    if (sparse.row >= 0 && check.beyond(sparse.expected, sparse.got, r.jacobian_scale)) {
      check.add(ModelProblem::SparseValuesMismatch, "constraintJacobianValues", sparse.row, sparse.col,
                sparse.expected, sparse.got, "the dense J's entry (an entry outside the pattern counts as 0)");
    }
  }
}

/// h(q, 0, t) against central differences of potentialEnergy(), entry by entry.
/// `bias_clean`: whether h(q, q̇, t) was clean; if not, its findings already name the entries and
/// those of h(q, 0, t) are not repeated.
void checkConservativeBias(StateCheck& check, const PaddedInput& q, ConstVectorRef rest, Eigen::Index padding,
                           bool bias_clean) {
  const ConstrainedSystem& system = check.system();
  const int nq = system.nq();
  const double t = check.state().t;
  Matrix h_at_rest;
  const auto issues = detail::probeOutput(nq, 1, h_at_rest, [&](double* data) {
    Eigen::Map<Vector> out(data, nq);
    system.bias(q.view(), rest, t, out);
  });
  if (bias_clean && !check.report(issues, "bias", nq, 1, false)) return;
  const Vector h = h_at_rest.col(0);
  Vector gradient(nq), rounding(nq);
  PaddedInput shifted(q.view(), padding);
  for (int i = 0; i < nq; ++i) {
    const double x = q.view()[i];
    const double step = check.options().relative_step * std::max(1.0, std::abs(x));
    shifted[i] = x + step;
    const double plus = check.scalar("potentialEnergy", [&] { return system.potentialEnergy(shifted.view(), t); });
    shifted[i] = x - step;
    const double minus = check.scalar("potentialEnergy", [&] { return system.potentialEnergy(shifted.view(), t); });
    shifted[i] = x;
    if (std::isnan(plus) || std::isnan(minus)) return;  // named by scalar()
    gradient[i] = (plus - minus) / (2.0 * step);
    // The quotient's own rounding: V may be large next to its gradient (m g y far from y = 0).
    rounding[i] = 16.0 * kEps * std::max(std::abs(plus), std::abs(minus)) / step;
  }
  double scale = largestMagnitude(gradient);
  for (int i = 0; i < nq; ++i) {
    if (std::isfinite(h[i])) scale = std::max(scale, std::abs(h[i]));
  }
  for (int i = 0; i < nq; ++i) {
    if (!std::isfinite(h[i])) continue;  // unwritten or non-finite: already named
    if (check.beyond(gradient[i], h[i], scale, rounding[i])) {
      check.add(ModelProblem::BiasNotConservative, "bias", i, -1, gradient[i], h[i],
                "h(q, 0, t) must equal dV/dq[" + std::to_string(i) + "], by central differences of potentialEnergy()");
    }
  }
}

/// Uniform in [0, 1) from the top 53 bits: mt19937_64's output is fixed by the standard, so the
/// states are the same on every platform (std::uniform_real_distribution's are not).
double unitUniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::vector<State> randomStates(int nq, const ModelCheckOptions& options) {
  std::mt19937_64 rng(options.random_seed);
  std::vector<State> states(static_cast<std::size_t>(options.random_states));
  for (State& state : states) {
    state.q.resize(nq);
    state.v.resize(nq);
    for (int i = 0; i < nq; ++i) state.q[i] = options.random_scale * (2.0 * unitUniform(rng) - 1.0);
    for (int i = 0; i < nq; ++i) state.v[i] = options.random_scale * (2.0 * unitUniform(rng) - 1.0);
    state.t = options.random_scale * unitUniform(rng);
  }
  return states;
}

void validateStates(const std::vector<State>& states, int nq) {
  for (std::size_t k = 0; k < states.size(); ++k) {
    const std::string prefix = "states[" + std::to_string(k) + "]";
    requireSize((prefix + ".q").c_str(), states[k].q.size(), nq);
    requireSize((prefix + ".v").c_str(), states[k].v.size(), nq);
    requireFinite((prefix + ".q").c_str(), states[k].q);
    requireFinite((prefix + ".v").c_str(), states[k].v);
    if (!std::isfinite(states[k].t)) throwInvalid(prefix + ".t", "must be finite, got " + formatDouble(states[k].t));
  }
}

}  // namespace

ModelCheckReport checkModel(const ConstrainedSystem& system, const std::vector<State>& states,
                            const ModelCheckOptions& options) {
  options.validate();
  ModelCheckReport report;
  report.model = system.name();
  Findings findings(report, options);
  const State no_state;
  StateCheck model_check(system, options, findings, -1, no_state);
  if (!checkSizes(system, model_check)) return report;

  const int nq = system.nq(), nc = system.nc(), nu = system.nu(), nnz = system.jacobianNonZeros();
  validateStates(states, nq);
  report.states = states.empty() ? randomStates(nq, options) : states;
  const MassStructure structure = system.massStructure();
  // Reading q or v "transposed" into J touches up to nq·max(nq, nc) entries past the start.
  const Eigen::Index padding =
      std::min<Eigen::Index>(static_cast<Eigen::Index>(std::max({nq, nc, nu, 1})) * nq + 16, Eigen::Index{1} << 16);

  // The pattern is fixed for the model's lifetime: probed once.
  IndexVector pattern_rows, pattern_cols;
  bool pattern_clean = true, pattern_reported = false;
  if (nnz > 0) {
    auto call = [&](IndexVector& out, bool rows) {
      return detail::probeIndexOutput(nnz, out, [&](int* data) {
        IndexVector other(nnz);
        Eigen::Map<IndexVector> map(data, nnz);
        if (rows) {
          system.constraintJacobianPattern(map, other);
        } else {
          system.constraintJacobianPattern(other, map);
        }
      });
    };
    pattern_clean = model_check.report(call(pattern_rows, true), "constraintJacobianPattern (rows)", nnz, 1, false, false);
    pattern_clean = model_check.report(call(pattern_cols, false), "constraintJacobianPattern (cols)", nnz, 1, false, false) &&
                    pattern_clean;
    pattern_reported = !pattern_clean;
  }

  std::vector<Outputs> outputs(report.states.size());
  const Vector* constant_diagonal = nullptr;
  int constant_index = -1;
  const Vector zero = Vector::Zero(nq);
  const PaddedInput rest(zero, padding);
  for (std::size_t k = 0; k < report.states.size(); ++k) {
    const State& state = report.states[k];
    StateCheck check(system, options, findings, static_cast<int>(k), state);
    const PaddedInput q(state.q, padding), v(state.v, padding);
    const double t = state.t;
    Outputs& out = outputs[k];

    PerTermOutputs terms;
    terms.phi_clean = check.vector("constraint", nc, terms.phi, [&](VectorRef o) { system.constraint(q.view(), t, o); });
    terms.J_clean = check.matrix("constraintJacobian", nc, nq, terms.J,
                                 [&](MatrixRef o) { system.constraintJacobian(q.view(), t, o); });
    terms.phi_t_clean = check.vector("constraintTimeDerivative", nc, terms.phi_t,
                                     [&](VectorRef o) { system.constraintTimeDerivative(q.view(), t, o); });
    terms.gamma_clean = check.vector("constraintBias", nc, terms.gamma,
                                     [&](VectorRef o) { system.constraintBias(q.view(), v.view(), t, o); });
    bool clean = terms.phi_clean && terms.J_clean && terms.phi_t_clean && terms.gamma_clean;
    if (nnz > 0) {
      terms.values_clean = check.vector("constraintJacobianValues", nnz, terms.values,
                                        [&](VectorRef o) { system.constraintJacobianValues(q.view(), t, o); });
      clean = clean && terms.values_clean && pattern_clean;
    }
    out.M_clean = check.matrix("massMatrix", nq, nq, out.M, [&](MatrixRef o) { system.massMatrix(q.view(), o); });
    if (structure != MassStructure::General) {
      out.d_clean = check.vector("massDiagonal", nq, out.d, [&](VectorRef o) { system.massDiagonal(q.view(), o); });
    }
    terms.h_clean = check.vector("bias", nq, terms.h, [&](VectorRef o) { system.bias(q.view(), v.view(), t, o); });
    const bool bias_clean = terms.h_clean;
    Matrix S;
    if (nu > 0) check.matrix("inputMap", nu, nq, S, [&](MatrixRef o) { system.inputMap(q.view(), t, o); });

    // Finite differences only on clean outputs: an unwritten entry is already named, and the
    // differences of a NaN say nothing more.
    if (clean && out.M_clean) {
      checkDerivativeFindings(check, q.view(), v.view(), pattern_rows, pattern_cols, pattern_reported);
    }
    checkMass(check, out, terms.J_clean ? &terms.J : nullptr, constant_diagonal, constant_index);
    checkEvaluateTerms(check, q.view(), v.view(), terms, false);
    if (nnz > 0) checkEvaluateTerms(check, q.view(), v.view(), terms, true);

    const double T = check.scalar("kineticEnergy", [&] { return system.kineticEnergy(q.view(), v.view()); });
    const double V = check.scalar("potentialEnergy", [&] { return system.potentialEnergy(q.view(), t); });
    if (out.M_clean && std::isfinite(T)) {
      const double expected = 0.5 * state.v.dot(out.M * state.v);
      if (check.beyond(expected, T, std::max(std::abs(expected), std::abs(T)))) {
        check.add(ModelProblem::KineticEnergyMismatch, "kineticEnergy", -1, -1, expected, T,
                  "½ q̇ᵀ M q̇ with M from massMatrix()");
      }
    }
    if (options.check_conservative_bias && std::isfinite(V)) {
      checkConservativeBias(check, q, rest.view(), padding, bias_clean);
    }
  }
  spdlog::debug("checkModel({}): {} states, {} findings, {} omitted", report.model, report.states.size(),
                report.findings.size(), report.omitted_findings);
  return report;
}

}  // namespace kktdae
