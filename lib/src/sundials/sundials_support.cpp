#include "sundials_support.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "../simulate/run_recorder.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae::detail::sundials {

Context::Context() {
  if (SUNContext_Create(nullptr, &context_) != 0 || context_ == nullptr) {
    throw std::runtime_error("SUNContext_Create failed");
  }
}

Context::~Context() { SUNContext_Free(&context_); }

namespace {
thread_local EmptyClonePool* current_clone_pool = nullptr;
}  // namespace

EmptyClonePool::EmptyClonePool(Eigen::Index n, SUNContext context)
    : shell_(N_VNewEmpty_Serial(static_cast<sunindextype>(n), context)) {
  if (shell_ == nullptr) throw std::runtime_error("N_VNewEmpty_Serial(" + std::to_string(n) + ") failed");
  shell_->ops->nvdestroy = &EmptyClonePool::giveBack;
}

EmptyClonePool::~EmptyClonePool() {
  shell_->ops->nvdestroy = &N_VDestroy_Serial;
  N_VDestroy(shell_);
}

EmptyClonePool::Lending::Lending(EmptyClonePool& pool) : pool_(pool) {
  pool_.previous_ = current_clone_pool;
  current_clone_pool = &pool_;
}

EmptyClonePool::Lending::~Lending() { current_clone_pool = pool_.previous_; }

void EmptyClonePool::installOn(N_Vector v) const { v->ops->nvcloneempty = &EmptyClonePool::lend; }

N_Vector EmptyClonePool::lend(N_Vector w) {
  EmptyClonePool* pool = current_clone_pool;
  if (pool != nullptr && !pool->lent_ && w->sunctx == pool->shell_->sunctx &&
      NV_LENGTH_S(w) == NV_LENGTH_S(pool->shell_)) {
    pool->lent_ = true;
    return pool->shell_;
  }
  return N_VCloneEmpty_Serial(w);
}

void EmptyClonePool::giveBack(N_Vector v) {
  for (EmptyClonePool* pool = current_clone_pool; pool != nullptr; pool = pool->previous_) {
    if (pool->shell_ == v) {
      N_VSetArrayPointer_Serial(nullptr, v);  // the lender views a matrix column it does not own
      pool->lent_ = false;
      return;
    }
  }
}

VectorPtr makeVector(Eigen::Index n, SUNContext context) {
  VectorPtr v(N_VNew_Serial(static_cast<sunindextype>(n), context));
  if (!v) throw std::runtime_error("N_VNew_Serial(" + std::to_string(n) + ") failed");
  N_VConst(0.0, v.get());
  return v;
}

void routeErrorMessage(int error_code, const char* module, const char* function, char* message, void* log) {
  spdlog::debug("SUNDIALS {} {} (code {}): {}", module ? module : "?", function ? function : "?", error_code,
                message ? message : "");
  auto* error_log = static_cast<ErrorLog*>(log);
  if (error_log != nullptr && error_code < 0) {
    error_log->last_message = message ? message : "";
    error_log->last_function = function ? function : "";
  }
}

namespace {
std::string takeName(char* name) {
  std::string text = name ? name : "UNKNOWN";
  std::free(name);
  return text;
}
}  // namespace

std::string solverFailureMessage(const std::string& call, const std::string& flag, double t_current,
                                 double last_step, double t_out, const ModelFailure& failure, const ErrorLog& log) {
  std::string message = call + " failed with " + flag + " at t = " + formatDouble(t_current) + " s (last step " +
                        formatDouble(last_step) + " s, next output " + formatDouble(t_out) + " s)";
  if (!failure.result.ok()) {
    message += ": model terms or KKT solve failed (" + std::string(toString(failure.result.status)) + ") at t = " +
               formatDouble(failure.time) + " s: " + failure.result.message + describeRows(failure.result.offending_rows);
  } else if (!log.last_message.empty()) {
    message += ": " + log.last_message;
  }
  return message;
}

std::string cvodeFlagName(long flag) { return takeName(CVodeGetReturnFlagName(flag)); }
std::string idaFlagName(long flag) { return takeName(IDAGetReturnFlagName(flag)); }

void checkCvode(int flag, const char* call) {
  if (flag < 0) throw SetupError(std::string(call) + " returned " + cvodeFlagName(flag));
}

void checkIda(int flag, const char* call) {
  if (flag < 0) throw SetupError(std::string(call) + " returned " + idaFlagName(flag));
}

}  // namespace kktdae::detail::sundials
