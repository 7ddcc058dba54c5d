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

void KktOptions::validate() const {
  if (!(min_rcond >= 0.0 && min_rcond < 1.0)) {
    throwInvalid("kkt.min_rcond", "must be in [0, 1), got " + formatDouble(min_rcond));
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
