#include "kktdae/kkt/kkt_options.hpp"

#include "kktdae/core/checks.hpp"
#include "kktdae/kkt/kkt_result.hpp"

namespace kktdae {

std::string_view toString(KktForm form) { return form == KktForm::Schur ? "schur" : "block"; }

KktForm parseKktForm(std::string_view text) {
  if (text == "schur") return KktForm::Schur;
  if (text == "block") return KktForm::Block;
  throwInvalid("form", "unknown KKT form '" + std::string(text) + "' (choose schur or block)");
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
  if (!(min_rcond >= 0.0 && min_rcond < 1.0)) {
    throwInvalid("kkt.min_rcond", "must be in [0, 1), got " + formatDouble(min_rcond));
  }
  if (!(rank_tolerance > 0.0 && rank_tolerance < 1.0)) {
    throwInvalid("kkt.rank_tolerance", "must be in (0, 1), got " + formatDouble(rank_tolerance));
  }
  if (!(regularization > 0.0 && regularization < 1.0)) {
    throwInvalid("kkt.regularization", "must be in (0, 1), got " + formatDouble(regularization));
  }
  if (rank_deficiency == RankDeficiencyPolicy::Regularize && !(regularization > min_rcond)) {
    throwInvalid("kkt.regularization", "must exceed kkt.min_rcond (" + formatDouble(min_rcond) +
                                           ") under the regularize policy, got " + formatDouble(regularization));
  }
}

const char* toString(KktStatus status) {
  switch (status) {
    case KktStatus::Ok: return "ok";
    case KktStatus::Singular: return "singular";
    case KktStatus::IllConditioned: return "ill-conditioned";
    case KktStatus::NonFinite: return "non-finite";
  }
  return "unknown";
}

}  // namespace kktdae
