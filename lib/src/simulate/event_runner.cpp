#include "event_runner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "run_recorder.hpp"

namespace kktdae::detail {
namespace {

int signOf(double x) { return (x > 0.0) - (x < 0.0); }

bool wanted(EventDirection wanted_direction, EventDirection crossing) {
  return wanted_direction == EventDirection::Either || wanted_direction == crossing;
}

// Illinois gives up after this many iterations: it halves the stale end's value, so the bracket
// shrinks at least linearly; 200 covers any step down to the time tolerance.
constexpr int kMaxRootIterations = 200;

}  // namespace

void hermiteInterpolate(double s, double h, ConstVectorRef q0, ConstVectorRef v0, ConstVectorRef q1,
                        ConstVectorRef v1, Vector& q, Vector& v) {
  const double s2 = s * s, s3 = s2 * s;
  const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
  const double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1, d01 = -6 * s2 + 6 * s, d11 = 3 * s2 - 2 * s;
  q = h00 * q0 + (h10 * h) * v0 + h01 * q1 + (h11 * h) * v1;
  v = (d00 / h) * q0 + d10 * v0 + (d01 / h) * q1 + d11 * v1;
}

EventRunner::EventRunner(const ConstrainedSystem& system, const SimulationOptions& options,
                         const Stabilization& stabilization, Summary& summary)
    : events_(options.events),
      event_observer_(options.event_observer),
      summary_(summary) {
  if (events_.empty()) return;  // nothing to allocate: a run without events pays nothing
  f_.emplace(system, stabilization, options.kkt, options.controller);
  for (Vector* scratch : {&qdd_, &q_prev_, &v_prev_, &q_s_, &v_s_}) scratch->resize(system.nq());
  lambda_s_.resize(system.nc());
  for (std::size_t e = 0; e < events_.size(); ++e) {
    values_.emplace_back(Vector::Zero(events_[e].size));
    for (int i = 0; i < events_[e].size; ++i) {
      component_event_.push_back(static_cast<int>(e));
      component_index_.push_back(i);
    }
  }
  const std::size_t n = component_event_.size();
  g_prev_.assign(n, 0.0);
  g_now_.assign(n, 0.0);
  sign_last_.assign(n, 0);
  at_zero_.assign(n, 0);
  crossings_.reserve(n);
}

std::vector<int> EventRunner::directions() const {
  std::vector<int> result;
  for (const int e : component_event_) {
    const EventDirection d = events_[e].direction;
    result.push_back(d == EventDirection::Rising ? 1 : d == EventDirection::Falling ? -1 : 0);
  }
  return result;
}

const Vector& EventRunner::lambdaAt(double t, ConstVectorRef q, ConstVectorRef v, const Vector* given) {
  if (given != nullptr) return *given;
  const KktResult result = f_->evaluate(t, q, v, qdd_);
  summary_.event_kkt_solves = f_->solves();
  if (!result.ok()) {
    throw std::runtime_error("the KKT solve for the events' lambda failed (" + std::string(toString(result.status)) +
                             ") at t = " + formatDouble(t) + " s: " + result.message);
  }
  return f_->lambda();
}

const Vector& EventRunner::evaluate(int e, double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
  const Event& event = events_[e];
  Vector& g = values_[e];
  if (g.size() != event.size) g.resize(event.size);  // a previous call left another size: put it back
  ++summary_.event_evaluations;
  event.g(t, q, v, lambda, g);
  if (g.size() != event.size) {
    throw std::runtime_error("event '" + event.name + "' (events[" + std::to_string(e) + "]) declares size " +
                             std::to_string(event.size) + " but its g left " + std::to_string(g.size()) +
                             " components at t = " + formatDouble(t) + " s");
  }
  for (int i = 0; i < event.size; ++i) {
    if (!std::isfinite(g[i])) {
      throw std::runtime_error("event '" + event.name + "' g[" + std::to_string(i) + "] = " + formatDouble(g[i]) +
                               " at t = " + formatDouble(t) + " s");
    }
  }
  return g;
}

void EventRunner::evaluateAll(double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda, double* out) {
  const Vector& l = lambdaAt(t, q, v, lambda);
  int c = 0;
  for (std::size_t e = 0; e < events_.size(); ++e) {
    const Vector& g = evaluate(static_cast<int>(e), t, q, v, l);
    for (int i = 0; i < g.size(); ++i) out[c++] = g[i];
  }
}

void EventRunner::start(double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda) {
  evaluateAll(t, q, v, lambda, g_prev_.data());
  for (std::size_t c = 0; c < g_prev_.size(); ++c) {
    // Exactly zero at t0 does not fire: the first non-zero sign is where the watch begins.
    sign_last_[c] = signOf(g_prev_[c]);
    at_zero_[c] = g_prev_[c] == 0.0;
  }
  t_prev_ = t;
  q_prev_ = q;
  v_prev_ = v;
}

double EventRunner::locate(int c, double t1, ConstVectorRef q1, ConstVectorRef v1) {
  const int e = component_event_[c], i = component_index_[c];
  const double h = t1 - t_prev_;
  const double tolerance = events_[e].time_tolerance;
  // Illinois (regula falsi that halves the value kept at a stale end) on s ∈ [a, b]; b stays on
  // the far side of the crossing, where the event is reported.
  double a = 0.0, b = 1.0, ga = g_prev_[c], gb = g_now_[c];
  int kept = 0;  // +1: b moved last time, −1: a moved last time
  for (int iteration = 0; iteration < kMaxRootIterations && (b - a) * h > tolerance; ++iteration) {
    double s = (a * gb - b * ga) / (gb - ga);
    if (!(s > a && s < b)) s = 0.5 * (a + b);
    const double t = t_prev_ + s * h;
    hermiteInterpolate(s, h, q_prev_, v_prev_, q1, v1, q_s_, v_s_);
    const double gs = evaluate(e, t, q_s_, v_s_, lambdaAt(t, q_s_, v_s_, nullptr))[i];
    if (gs == 0.0) return s;
    if (signOf(gs) == signOf(gb)) {
      b = s;
      gb = gs;
      if (kept == 1) ga *= 0.5;
      kept = 1;
    } else {
      a = s;
      ga = gs;
      if (kept == -1) gb *= 0.5;
      kept = -1;
    }
  }
  return b;
}

bool EventRunner::afterStep(long k, double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda) {
  const Vector& end_lambda = lambdaAt(t, q, v, lambda);
  if (lambda == nullptr) lambda_s_ = end_lambda;  // the search's solves overwrite f_'s λ
  const Vector& lambda_end = lambda != nullptr ? *lambda : lambda_s_;
  {
    int c = 0;
    for (std::size_t e = 0; e < events_.size(); ++e) {
      const Vector& g = evaluate(static_cast<int>(e), t, q, v, lambda_end);
      for (int i = 0; i < g.size(); ++i) g_now_[c++] = g[i];
    }
  }
  crossings_.clear();
  for (std::size_t c = 0; c < g_now_.size(); ++c) {
    const int s1 = signOf(g_now_[c]);
    // Leaving an exact zero is the rest of a crossing already fired (or of a zero at t0).
    if (!at_zero_[c] && sign_last_[c] != 0 && s1 != sign_last_[c]) {
      const EventDirection direction = sign_last_[c] < 0 ? EventDirection::Rising : EventDirection::Falling;
      if (wanted(events_[component_event_[c]].direction, direction)) {
        crossings_.push_back({1.0, t, static_cast<int>(c), direction});
      }
    }
    at_zero_[c] = s1 == 0;
    if (s1 != 0) sign_last_[c] = s1;
  }
  const double h = t - t_prev_;
  for (Crossing& crossing : crossings_) {
    if (g_now_[crossing.component] == 0.0) continue;  // exactly at the step point: fires there
    crossing.s = locate(crossing.component, t, q, v);
    crossing.t = crossing.s >= 1.0 ? t : t_prev_ + crossing.s * h;
  }
  std::stable_sort(crossings_.begin(), crossings_.end(),
                   [](const Crossing& x, const Crossing& y) { return x.t < y.t; });
  for (const Crossing& crossing : crossings_) {
    const int e = component_event_[crossing.component], i = component_index_[crossing.component];
    bool stop = false;
    if (crossing.s >= 1.0) {
      stop = fire(crossing.component, k, crossing.direction, t, q, v, lambda_end, g_now_[crossing.component]);
    } else {
      hermiteInterpolate(crossing.s, h, q_prev_, v_prev_, q, v, q_s_, v_s_);
      const Vector& l = lambdaAt(crossing.t, q_s_, v_s_, nullptr);
      const double value = evaluate(e, crossing.t, q_s_, v_s_, l)[i];
      stop = fire(crossing.component, k, crossing.direction, crossing.t, q_s_, v_s_, l, value);
    }
    if (stop) return true;
  }
  std::copy(g_now_.begin(), g_now_.end(), g_prev_.begin());
  t_prev_ = t;
  q_prev_ = q;
  v_prev_ = v;
  return false;
}

bool EventRunner::fireFound(long k, double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda,
                            const int* found) {
  const Vector* l = &lambdaAt(t, q, v, lambda);
  if (lambda == nullptr) {
    lambda_s_ = *l;
    l = &lambda_s_;
  }
  // Each event's g once for all its components found at this root (once per component found
  // made m components that cross together cost m² component values).
  int first = 0;
  for (std::size_t e = 0; e < events_.size(); ++e) {
    const int end = first + events_[e].size;
    if (std::any_of(found + first, found + end, [](int f) { return f != 0; })) {
      const Vector& g = evaluate(static_cast<int>(e), t, q, v, *l);
      for (int c = first; c < end; ++c) {
        if (found[c] == 0) continue;
        const EventDirection direction = found[c] > 0 ? EventDirection::Rising : EventDirection::Falling;
        if (fire(c, k, direction, t, q, v, *l, g[c - first])) return true;
      }
    }
    first = end;
  }
  return false;
}

bool EventRunner::fire(int c, long k, EventDirection direction, double t, ConstVectorRef q, ConstVectorRef v,
                       ConstVectorRef lambda, double value) {
  const int e = component_event_[c];
  const Event& event = events_[e];
  FiredEvent fired;
  fired.name = event.name;
  fired.event = e;
  fired.component = component_index_[c];
  fired.time = t;
  fired.step = k;
  fired.direction = direction;
  fired.value = value;
  fired.q = q;
  fired.v = v;
  fired.lambda = lambda;
  summary_.events.push_back(std::move(fired));
  const FiredEvent& recorded = summary_.events.back();
  spdlog::debug("event '{}'[{}] {} at t = {} (step {})", recorded.name, recorded.component, toString(direction),
                t, k);
  if (event_observer_) event_observer_(recorded);
  bool stop = event.action == EventAction::Stop;
  if (event.action == EventAction::Callback) stop = event.callback(summary_.events.back()) == EventDecision::Stop;
  if (stop) stop_step_ = k;
  return stop;
}

Summary EventRunner::finishStopped(RunRecorder& recorder) {
  const FiredEvent& at = summary_.events.back();
  const KktResult terms = f_->evaluateTerms(at.time, at.q, at.v);
  if (!terms.ok()) {
    throw std::runtime_error("the model terms at the stopping event failed at t = " + formatDouble(at.time) +
                             " s: " + terms.message);
  }
  recorder.observe(at.time, at.q, at.v, at.lambda, f_->workspace(), std::nan(""));
  const std::string how = events_[at.event].action == EventAction::Callback ? "its callback stopped the run"
                                                                             : "a stop event";
  return recorder.finish(RunStatus::StoppedByEvent,
                         "stopped by event '" + at.name + "' (component " + std::to_string(at.component) + ", " +
                             std::string(toString(at.direction)) + ", " + how + ") at t = " +
                             formatDouble(at.time) + " s in step " + std::to_string(at.step));
}

}  // namespace kktdae::detail
