#include "kktdae/kkt/kkt_options.hpp"

#include "kktdae/core/checks.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

std::string_view toString(KktForm form) {
  switch (form) {
    case KktForm::Schur: return "schur";
    case KktForm::Block: return "block";
  }
  return "unknown";
}

KktForm parseKktForm(std::string_view text) {
  if (text == "schur") return KktForm::Schur;
  if (text == "block") return KktForm::Block;
  throwInvalid("form", "unknown KKT form '" + std::string(text) + "' (choose schur or block)");
}

std::string_view toString(KktPath path) {
  switch (path) {
    case KktPath::Auto: return "auto";
    case KktPath::Dense: return "dense";
    case KktPath::Sparse: return "sparse";
  }
  return "unknown";
}

KktPath parseKktPath(std::string_view text) {
  if (text == "auto") return KktPath::Auto;
  if (text == "dense") return KktPath::Dense;
  if (text == "sparse") return KktPath::Sparse;
  throwInvalid("path", "unknown KKT path '" + std::string(text) + "' (choose auto, dense or sparse)");
}

bool usesSparsePath(const ConstrainedSystem& system, const KktOptions& options) {
  const bool has_sparse_jacobian = system.jacobianNonZeros() > 0;
  const bool diagonal_mass = system.massStructure() != MassStructure::General;
  const bool minimum_norm = options.rank_deficiency == RankDeficiencyPolicy::MinimumNorm;
  switch (options.path) {
    case KktPath::Dense: return false;
    case KktPath::Auto:
      return has_sparse_jacobian && diagonal_mass && !minimum_norm && system.nq() >= options.sparse_min_coordinates;
    case KktPath::Sparse:
      if (!has_sparse_jacobian) {
        throwInvalid("kkt.path", "sparse needs a model with a sparse Jacobian; " + system.name() + " has none");
      }
      if (!diagonal_mass) {
        throwInvalid("kkt.path", "sparse needs a diagonal mass matrix; " + system.name() + " declares a general M");
      }
      if (minimum_norm) {
        throwInvalid("kkt.path", "sparse cannot apply rank_deficiency = minimum_norm (it needs the dense "
                                 "eigen-decomposition): use regularize, or the dense path");
      }
      return true;
  }
  return false;
}

std::string_view toString(RankDeficiencyPolicy policy) {
  switch (policy) {
    case RankDeficiencyPolicy::Fail: return "fail";
    case RankDeficiencyPolicy::MinimumNorm: return "minimum_norm";
    case RankDeficiencyPolicy::Regularize: return "regularize";
  }
  return "unknown";
}

RankDeficiencyPolicy parseRankDeficiencyPolicy(std::string_view text) {
  if (text == "fail") return RankDeficiencyPolicy::Fail;
  if (text == "minimum_norm") return RankDeficiencyPolicy::MinimumNorm;
  if (text == "regularize") return RankDeficiencyPolicy::Regularize;
  throwInvalid("rank_deficiency",
               "unknown policy '" + std::string(text) + "' (choose fail, minimum_norm or regularize)");
}

void KktOptions::validate() const {
  // An enum cast from an integer out of range would otherwise fall through every switch and run
  // as whatever the last branch does.
  if (toString(form) == "unknown") throwInvalid("kkt.form", "is not a KktForm value (" + std::to_string(static_cast<int>(form)) + ")");
  if (toString(path) == "unknown") throwInvalid("kkt.path", "is not a KktPath value (" + std::to_string(static_cast<int>(path)) + ")");
  if (toString(rank_deficiency) == "unknown") {
    throwInvalid("kkt.rank_deficiency",
                 "is not a RankDeficiencyPolicy value (" + std::to_string(static_cast<int>(rank_deficiency)) + ")");
  }
  if (!(min_rcond >= 0.0 && min_rcond < 1.0)) {
    throwInvalid("kkt.min_rcond", "must be in [0, 1), got " + formatDouble(min_rcond));
  }
  if (!(rank_tolerance > 0.0 && rank_tolerance < 1.0)) {
    throwInvalid("kkt.rank_tolerance", "must be in (0, 1), got " + formatDouble(rank_tolerance));
  }
  if (!(regularization > 0.0 && regularization < 1.0)) {
    throwInvalid("kkt.regularization", "must be in (0, 1), got " + formatDouble(regularization));
  }
  if (sparse_min_coordinates < 1) {
    throwInvalid("kkt.sparse_min_coordinates", "must be ≥ 1, got " + std::to_string(sparse_min_coordinates));
  }
  if (rank_deficiency == RankDeficiencyPolicy::Regularize && !(regularization > min_rcond)) {
    throwInvalid("kkt.regularization", "must exceed kkt.min_rcond (" + formatDouble(min_rcond) +
                                           ") under the regularize policy, got " + formatDouble(regularization));
  }
}

std::string_view toString(KktStatus status) {
  switch (status) {
    case KktStatus::Ok: return "ok";
    case KktStatus::Singular: return "singular";
    case KktStatus::IllConditioned: return "ill-conditioned";
    case KktStatus::NonFinite: return "non-finite";
  }
  return "unknown";
}

}  // namespace kktdae
