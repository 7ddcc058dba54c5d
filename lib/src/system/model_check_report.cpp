// ModelCheckOptions::validate(), and the words of checkModel()'s report.
#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"
#include "kktdae/system/check_model.hpp"

namespace kktdae {
namespace {

/// "(0.1, -0.2, 0.3)", the first 6 entries and a count beyond, so a long chain stays one line.
std::string formatVector(ConstVectorRef x) {
  constexpr Eigen::Index kShown = 6;
  std::string text = "(";
  for (Eigen::Index i = 0; i < std::min(x.size(), kShown); ++i) {
    if (i > 0) text += ", ";
    text += formatDouble(x[i]);
  }
  if (x.size() > kShown) text += ", … " + std::to_string(x.size()) + " entries";
  return text + ")";
}

}  // namespace

std::string_view toString(ModelProblem problem) {
  switch (problem) {
    case ModelProblem::InvalidSize: return "invalid_size";
    case ModelProblem::Threw: return "threw";
    case ModelProblem::Unwritten: return "unwritten";
    case ModelProblem::DependsOnOutput: return "depends_on_output";
    case ModelProblem::WritesPastEnd: return "writes_past_end";
    case ModelProblem::NonFinite: return "non_finite";
    case ModelProblem::MassAsymmetric: return "mass_asymmetric";
    case ModelProblem::MassNotPositiveDefinite: return "mass_not_positive_definite";
    case ModelProblem::MassDiagonalMismatch: return "mass_diagonal_mismatch";
    case ModelProblem::MassStructureViolated: return "mass_structure_violated";
    case ModelProblem::JacobianMismatch: return "jacobian_mismatch";
    case ModelProblem::TimeDerivativeMismatch: return "time_derivative_mismatch";
    case ModelProblem::GammaMismatch: return "gamma_mismatch";
    case ModelProblem::SparsePatternInvalid: return "sparse_pattern_invalid";
    case ModelProblem::SparseValuesMismatch: return "sparse_values_mismatch";
    case ModelProblem::KineticEnergyMismatch: return "kinetic_energy_mismatch";
    case ModelProblem::BiasNotConservative: return "bias_not_conservative";
    case ModelProblem::EvaluateTermsMismatch: return "evaluate_terms_mismatch";
  }
  return "unknown";
}

void ModelCheckOptions::validate() const {
  requireNonNegative("relative_tolerance", relative_tolerance);
  requireNonNegative("absolute_tolerance", absolute_tolerance);
  requireNonNegative("terms_relative_tolerance", terms_relative_tolerance);
  requirePositive("relative_step", relative_step);
  if (random_states < 2) throwInvalid("random_states", "must be at least 2, got " + std::to_string(random_states));
  requirePositive("random_scale", random_scale);
  if (max_findings_per_kind < 1) {
    throwInvalid("max_findings_per_kind", "must be at least 1, got " + std::to_string(max_findings_per_kind));
  }
}

std::string ModelFinding::describe() const {
  std::string text = method;
  if (row >= 0 && col >= 0) {
    text += " entry (" + std::to_string(row) + ", " + std::to_string(col) + ")";
  } else if (row >= 0) {
    text += " entry " + std::to_string(row);
  }
  if (problem == ModelProblem::MassNotPositiveDefinite) {
    // `expected` is the bound 0, which "expected 0, got 0" would read as a match.
    text += ": " + std::string(toString(problem)) + ", smallest eigenvalue " + formatDouble(got) + ", expected > 0";
  } else {
    // NaN as `expected` means "any finite value"; an unwritten entry holds only the sentinel.
    text += ": " + std::string(toString(problem)) + ", expected " +
            (std::isnan(expected) ? std::string("a finite value") : formatDouble(expected)) + ", got " +
            (problem == ModelProblem::Unwritten ? std::string("nothing") : formatDouble(got));
  }
  if (state_index >= 0) {
    text += " at states[" + std::to_string(state_index) + "] (t = " + formatDouble(state.t) +
            ", q = " + formatVector(state.q) + ", v = " + formatVector(state.v) + ")";
  }
  if (!detail.empty()) text += ": " + detail;
  return text;
}

std::string ModelCheckReport::describe() const {
  std::string text = "checkModel(" + model + "): " + std::to_string(states.size()) + " states, ";
  if (ok()) return text + "ok";
  text += std::to_string(findings.size()) + " findings";
  if (omitted_findings > 0) text += " (and " + std::to_string(omitted_findings) + " more of the same kinds, not listed)";
  for (const ModelFinding& finding : findings) text += "\n  " + finding.describe();
  return text;
}

}  // namespace kktdae
