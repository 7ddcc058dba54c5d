#pragma once
// RAII handles for SUNDIALS 6.4 objects, error routing to spdlog, and flag names (internal:
// no SUNDIALS header appears in kktdae's public headers).

#include <cvodes/cvodes.h>
#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nonlinearsolver.h>

#include <Eigen/Core>

#include "kktdae/kkt/kkt_result.hpp"
#include <memory>
#include <stdexcept>
#include <string>

namespace kktdae::detail::sundials {

/// A SUNContext, created with no MPI communicator (SUNDIALS 6's serial use).
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  operator SUNContext() const { return context_; }

 private:
  SUNContext context_ = nullptr;
};

struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct LinearSolverDeleter {
  void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct NonlinearSolverDeleter {
  void operator()(SUNNonlinearSolver s) const { SUNNonlinSolFree(s); }
};
struct CvodeDeleter {
  void operator()(void* memory) const { CVodeFree(&memory); }
};
struct IdaDeleter {
  void operator()(void* memory) const { IDAFree(&memory); }
};

using VectorPtr = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using MatrixPtr = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using LinearSolverPtr = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinearSolverDeleter>;
using NonlinearSolverPtr = std::unique_ptr<std::remove_pointer_t<SUNNonlinearSolver>, NonlinearSolverDeleter>;
using CvodeMemoryPtr = std::unique_ptr<void, CvodeDeleter>;
using IdaMemoryPtr = std::unique_ptr<void, IdaDeleter>;

/// A serial N_Vector of length n, zeroed; throws std::runtime_error if SUNDIALS cannot allocate.
VectorPtr makeVector(Eigen::Index n, SUNContext context);

/// Lends one preallocated empty serial vector to the N_VCloneEmpty() calls of the vectors it
/// is installed on (and of their clones, which copy the operation table). SUNDIALS' dense
/// difference-quotient Jacobians (cvLsDenseDQJac, idaLsDenseDQJac) clone an empty vector to view
/// each column of the matrix and destroy it again, three mallocs per Jacobian; the lent vector
/// makes that allocation-free with SUNDIALS' own arithmetic. A pool lends only while a Lending
/// scope of it is alive on this thread, the innermost one (scopes nest LIFO as stack objects, so
/// a pool held by a long-lived object, a Simulator's, lends only inside its solver calls); a
/// clone asked for while the vector is lent, of another length or context, or outside any scope,
/// is a real N_VCloneEmpty_Serial(), so the pool only ever saves allocations.
class EmptyClonePool {
 public:
  EmptyClonePool(Eigen::Index n, SUNContext context);
  ~EmptyClonePool();
  EmptyClonePool(const EmptyClonePool&) = delete;
  EmptyClonePool& operator=(const EmptyClonePool&) = delete;
  /// Routes v's N_VCloneEmpty() through the pool; install before the solver clones v.
  void installOn(N_Vector v) const;

  /// While alive, `pool` is the one that lends on this thread.
  class Lending {
   public:
    explicit Lending(EmptyClonePool& pool);
    ~Lending();
    Lending(const Lending&) = delete;
    Lending& operator=(const Lending&) = delete;

   private:
    EmptyClonePool& pool_;
  };

 private:
  static N_Vector lend(N_Vector w);
  static void giveBack(N_Vector v);
  N_Vector shell_ = nullptr;
  bool lent_ = false;
  EmptyClonePool* previous_ = nullptr;  // the pool lending outside this one's Lending scope
};

/// The vector's data as an Eigen map (no copy).
inline Eigen::Map<Eigen::VectorXd> view(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<Eigen::Index>(N_VGetLength(v))};
}

/// Collects the last message SUNDIALS reported, after sending it to spdlog (never to stderr).
struct ErrorLog {
  std::string last_message;
  std::string last_function;
};
void routeErrorMessage(int error_code, const char* module, const char* function, char* message, void* log);

/// The model failure a right-hand side or residual recorded before SUNDIALS gave up.
struct ModelFailure {
  KktResult result;  ///< Ok when none was recorded
  double time = 0.0;
};

/// "<call> failed with <FLAG> at t = … s (last step … s, next output … s): <why>", the why being
/// the recorded model failure if any, else SUNDIALS' own last message.
std::string solverFailureMessage(const std::string& call, const std::string& flag, double t_current,
                                 double last_step, double t_out, const ModelFailure& failure, const ErrorLog& log);

/// "CV_CONV_FAILURE" etc. (SUNDIALS allocates the name; this frees it).
std::string cvodeFlagName(long flag);
std::string idaFlagName(long flag);

/// Thrown (and caught inside the drivers) when a setup call returns a failure flag.
struct SetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Throws SetupError("<call> returned <FLAG>") unless flag >= 0 (CVODE convention).
void checkCvode(int flag, const char* call);
void checkIda(int flag, const char* call);

}  // namespace kktdae::detail::sundials
