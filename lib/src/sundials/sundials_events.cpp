#include "sundials_events.hpp"

#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {

namespace sd = sundials;

void initCvodeEvents(void* memory, SundialsEvents& events, CVRootFn roots) {
  sd::checkCvode(CVodeRootInit(memory, events.runner.components(), roots), "CVodeRootInit");
  std::vector<int> directions = events.runner.directions();
  sd::checkCvode(CVodeSetRootDirection(memory, directions.data()), "CVodeSetRootDirection");
  sd::checkCvode(CVodeSetNoInactiveRootWarn(memory), "CVodeSetNoInactiveRootWarn");
}

void initIdaEvents(void* memory, SundialsEvents& events, IDARootFn roots) {
  sd::checkIda(IDARootInit(memory, events.runner.components(), roots), "IDARootInit");
  std::vector<int> directions = events.runner.directions();
  sd::checkIda(IDASetRootDirection(memory, directions.data()), "IDASetRootDirection");
  sd::checkIda(IDASetNoInactiveRootWarn(memory), "IDASetNoInactiveRootWarn");
}

int cvodeEventRoots(SundialsEvents& events, double t, N_Vector y, double* gout) try {
  const auto state = sd::view(y);
  events.runner.evaluateAll(t, state.head(events.nq), state.tail(events.nq), nullptr, gout);
  return 0;
} catch (const std::exception& error) {
  if (events.failure.empty()) events.failure = std::string("an event's g failed: ") + error.what();
  return -1;
}

int idaEventRoots(SundialsEvents& events, double t, N_Vector y, double* gout) try {
  const auto state = sd::view(y);
  if (events.own_lambda) events.lambda = state.segment(2 * events.nq, events.nc);
  events.runner.evaluateAll(t, state.head(events.nq), state.segment(events.nq, events.nq),
                            events.own_lambda ? &events.lambda : nullptr, gout);
  return 0;
} catch (const std::exception& error) {
  if (events.failure.empty()) events.failure = std::string("an event's g failed: ") + error.what();
  return -1;
}

bool cvodeRootReturned(void* memory, SundialsEvents& events, long k, double t, N_Vector y) {
  sd::checkCvode(CVodeGetRootInfo(memory, events.found.data()), "CVodeGetRootInfo");
  const auto state = sd::view(y);
  return events.runner.fireFound(k, t, state.head(events.nq), state.tail(events.nq), nullptr, events.found.data());
}

bool idaRootReturned(void* memory, SundialsEvents& events, long k, double t, N_Vector y) {
  sd::checkIda(IDAGetRootInfo(memory, events.found.data()), "IDAGetRootInfo");
  const auto state = sd::view(y);
  if (events.own_lambda) events.lambda = state.segment(2 * events.nq, events.nc);
  return events.runner.fireFound(k, t, state.head(events.nq), state.segment(events.nq, events.nq),
                                 events.own_lambda ? &events.lambda : nullptr, events.found.data());
}

namespace {

bool withinRootTolerance(double t_root, double t_out, double h) {
  return std::abs(t_out - t_root) <= 100.0 * std::numeric_limits<double>::epsilon() * (std::abs(t_root) + std::abs(h));
}

}  // namespace

bool cvodeRootAtOutput(void* memory, double t_root, double t_out) {
  sunrealtype h = 0.0;
  if (CVodeGetCurrentStep(memory, &h) < 0) h = 0.0;
  return withinRootTolerance(t_root, t_out, h);
}

bool idaRootAtOutput(void* memory, double t_root, double t_out) {
  sunrealtype h = 0.0;
  if (IDAGetCurrentStep(memory, &h) < 0) h = 0.0;
  return withinRootTolerance(t_root, t_out, h);
}

}  // namespace kktdae::detail
