#include "kktdae/contact/event_driven.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae::contact {

void ContactRunOptions::validate() const {
  if (integrator != Integrator::Rk4) {
    throw std::invalid_argument("event-driven contact: integrator '" + std::string(toString(integrator)) +
                                "' is not supported yet; use rk4");
  }
  auto positive = [](const char* field, double value) {
    if (!(value > 0.0) || !std::isfinite(value)) {
      throw std::invalid_argument(std::string("ContactRunOptions::") + field + " = " + formatDouble(value) +
                                  " must be finite and > 0");
    }
  };
  positive("dt", dt);
  positive("time_tolerance", time_tolerance);
  if (time_tolerance > 1e-13) {
    throw std::invalid_argument("ContactRunOptions::time_tolerance = " + formatDouble(time_tolerance) +
                                " must be at most 1e-13 s");
  }
  positive("gap_tolerance", gap_tolerance);
  positive("velocity_tolerance", velocity_tolerance);
  positive("zeno_horizon", zeno_horizon);
  if (!std::isfinite(end_time)) throw std::invalid_argument("ContactRunOptions::end_time is not finite");
  if (max_impacts < 1) {
    throw std::invalid_argument("ContactRunOptions::max_impacts = " + std::to_string(max_impacts) + " < 1");
  }
  lcp.validate();
}

std::string ContactSummary::briefReport() const {
  std::ostringstream out;
  out.precision(10);
  out << toString(status) << ": t = " << t_final << " s, " << steps << " steps, " << impacts.size() << " impacts";
  if (zeno_time) out << ", zeno_time " << *zeno_time << " s (gap " << zeno_contact << ")";
  out << ", max complementarity residual " << max_complementarity_residual;
  if (!message.empty()) out << "; " << message;
  return out.str();
}

namespace {

// What the run needs for one (system, gaps) pair: the active set, the workspace and the RK4 stages.
class ContactRun {
 public:
  ContactRun(const ConstrainedSystem& system, const UnilateralConstraints& gaps, const ContactRunOptions& options,
             const ContactObserver& observer, ContactSummary& summary)
      : sys_(system), gaps_(gaps), opt_(options), observer_(observer), sum_(summary), ws_(system, gaps),
        ng_(gaps.ng()), active_(static_cast<std::size_t>(ng_), 0), opened_(static_cast<std::size_t>(ng_), 0),
        history_(static_cast<std::size_t>(ng_)) {}

  void run(const State& initial);

 private:
  std::vector<int> activeSet() const {
    std::vector<int> set;
    for (int k = 0; k < ng_; ++k)
      if (active_[static_cast<std::size_t>(k)]) set.push_back(k);
    return set;
  }
  ContactAccelerations accelerations(double t, const Vector& q, const Vector& v) {
    ++sum_.acceleration_solves;
    return solveContactAccelerations(sys_, gaps_, t, q, v, activeSet(), ContactLaw::Equality, ws_, opt_.lcp);
  }
  // One RK4 step of length h from (t, q, v) with the current active set: the increments.
  void rk4Increments(double t, const Vector& q, const Vector& v, double h, Vector& dq, Vector& dv) {
    const Vector a1 = accelerations(t, q, v).qdd;
    const Vector q2 = q + 0.5 * h * v, v2 = v + 0.5 * h * a1;
    const Vector a2 = accelerations(t + 0.5 * h, q2, v2).qdd;
    const Vector q3 = q + 0.5 * h * v2, v3 = v + 0.5 * h * a2;
    const Vector a3 = accelerations(t + 0.5 * h, q3, v3).qdd;
    const Vector q4 = q + h * v3, v4 = v + h * a3;
    const Vector a4 = accelerations(t + h, q4, v4).qdd;
    dq = (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4);
    dv = (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
  }
  void rk4(double t, const Vector& q, const Vector& v, double h, Vector& q1, Vector& v1) {
    Vector dq, dv;
    rk4Increments(t, q, v, h, dq, dv);
    q1 = q + dq;
    v1 = v + dv;
  }
  // Takes the step of length h from the current state, adding its increments with Kahan's
  // compensation: a free flight of hundreds of steps then keeps its velocity to round-off instead
  // of drifting by the same rounding every step (what would move the impact times by 1e-13 s).
  void advance(double h) {
    Vector dq, dv;
    rk4Increments(t_, q_, v_, h, dq, dv);
    kahanAdd(q_, dq, carry_q_);
    kahanAdd(v_, dv, carry_v_);
    advanceTime(h);
  }
  // t advances by compensated sums too: a thousand steps of 1e-3 s added plainly drift by 1e-13 s.
  void advanceTime(double h) {
    const double y = h - carry_t_;
    const double sum = t_ + y;
    carry_t_ = (sum - t_) - y;
    t_ = sum;
  }
  static void kahanAdd(Vector& x, const Vector& dx, Vector& carry) {
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double y = dx[i] - carry[i];
      const double sum = x[i] + y;
      carry[i] = (sum - x[i]) - y;
      x[i] = sum;
    }
  }
  // The event function of gap k at a state: g for a free gap, λ_N for an active one.
  double eventValue(int k, double t, const Vector& q, const Vector& v) {
    if (active_[static_cast<std::size_t>(k)]) return accelerations(t, q, v).lambda_N[k];
    Vector g(ng_);
    gaps_.gap(q, t, g);
    return g[k];
  }
  double trial(int k, double h, Vector& q1, Vector& v1) {
    ++sum_.root_trials;
    rk4(t_, q_, v_, h, q1, v1);
    return eventValue(k, t_ + h, q1, v1);
  }
  // The step length h ∈ (lo, hi] at which event k crosses zero (value > 0 at lo, ≤ 0 at hi), by
  // the Illinois variant of regula falsi, to the time tolerance; returns the end with the smaller |value|.
  double locate(int k, double lo, double f_lo, double hi, double f_hi);
  // Step length of the first crossing of event k inside a step of length h, or −1 if none.
  double firstCrossing(int k, double h, double f_end);
  void observe(const Vector& v_shown, bool with_forces);
  void impact(int trigger);
  // Decides the contact set among the closed gaps by the acceleration LCP (never `released`).
  void settleContacts(int released = -1);
  void checkZeno(int k);

  const ConstrainedSystem& sys_;
  const UnilateralConstraints& gaps_;
  const ContactRunOptions& opt_;
  const ContactObserver& observer_;
  ContactSummary& sum_;
  ContactWorkspace ws_;
  int ng_;
  std::vector<char> active_, opened_;
  std::vector<std::vector<double>> history_;  // impact times per gap
  double t_ = 0.0;
  Vector q_, v_, carry_q_, carry_v_;
  double carry_t_ = 0.0;
  bool zeno_now_ = false;
};

double ContactRun::locate(int k, double lo, double f_lo, double hi, double f_hi) {
  ++sum_.root_searches;
  Vector q1, v1;
  int side = 0;
  for (int it = 0; it < 200 && hi - lo > opt_.time_tolerance; ++it) {
    double h = hi - f_hi * (hi - lo) / (f_hi - f_lo);
    if (!(h > lo && h < hi)) h = 0.5 * (lo + hi);
    const double f = trial(k, h, q1, v1);
    if (f > 0.0) {
      lo = h;
      f_lo = f;
      if (side == 1) f_hi *= 0.5;
      side = 1;
    } else {
      hi = h;
      f_hi = f;
      if (f == 0.0) break;
      if (side == -1) f_lo *= 0.5;
      side = -1;
    }
  }
  // Compare the true values at both ends (the Illinois halving scaled the kept one).
  const double a = std::abs(trial(k, lo, q1, v1));
  const double b = std::abs(trial(k, hi, q1, v1));
  return (a < b && lo > 0.0) ? lo : hi;
}

double ContactRun::firstCrossing(int k, double h, double f_end) {
  if (f_end > 0.0) return -1.0;
  Vector q1, v1;
  if (!opened_[static_cast<std::size_t>(k)]) {
    const double f0 = eventValue(k, t_, q_, v_);
    if (f0 > 0.0) return locate(k, 0.0, f0, h, f_end);
  }
  // A gap that has just opened (or sits at zero) starts at g ≈ 0: find where it is positive first,
  // halving towards the start; the crossing back lies after it.
  double hi = h, f_hi = f_end;
  for (int j = 0; j < 60; ++j) {
    const double s = 0.5 * hi;
    const double f = trial(k, s, q1, v1);
    if (f > 0.0) return locate(k, s, f, hi, f_hi);
    hi = s;
    f_hi = f;
    if (hi < opt_.time_tolerance) break;
  }
  return 0.0;  // never positive: closed again at once
}

void ContactRun::observe(const Vector& v_shown, bool with_forces) {
  sum_.t_final = t_;
  if (!observer_ && sys_.nc() == 0) return;
  if (with_forces) {
    const ContactAccelerations acc = accelerations(t_, q_, v_shown);
    if (sys_.nc() > 0) sum_.max_phi_inf = std::max(sum_.max_phi_inf, ws_.phi.lpNorm<Eigen::Infinity>());
    if (observer_) observer_(t_, q_, v_shown, acc.lambda, acc.lambda_N);
  } else {
    evaluateContactTerms(sys_, gaps_, t_, q_, v_shown, ws_);
    if (observer_) observer_(t_, q_, v_shown, ws_.lambda0, Vector::Zero(ng_));
  }
}

void ContactRun::checkZeno(int k) {
  std::vector<double>& ts = history_[static_cast<std::size_t>(k)];
  ts.push_back(t_);
  const std::size_t n = ts.size();
  if (n < 4) return;
  const double d0 = ts[n - 3] - ts[n - 4], d1 = ts[n - 2] - ts[n - 3], d2 = ts[n - 1] - ts[n - 2];
  if (!(d0 > 0.0 && d1 > 0.0 && d2 > 0.0)) return;
  const double r_prev = d1 / d0, r = d2 / d1;
  if (!(r < 1.0 && std::abs(r - r_prev) <= 0.05 * r)) return;  // not a geometric accumulation
  const double remaining = d2 * r / (1.0 - r);
  if (remaining > opt_.zeno_horizon) return;
  sum_.zeno_time = t_ + remaining;
  sum_.zeno_contact = k;
  zeno_now_ = true;
}

void ContactRun::impact(int trigger) {
  // The closed set: the active gaps, the trigger and every other gap closed and closing now.
  evaluateContactTerms(sys_, gaps_, t_, q_, v_, ws_);
  const Vector gdot = ws_.J_N * v_ + ws_.g_t;
  std::vector<int> set;
  for (int k = 0; k < ng_; ++k) {
    const bool closed = ws_.g[k] <= opt_.gap_tolerance;
    if (active_[static_cast<std::size_t>(k)] || k == trigger || (closed && gdot[k] < -opt_.velocity_tolerance)) {
      set.push_back(k);
    }
  }
  const Vector v_minus = v_;
  const double T_minus = sys_.kineticEnergy(q_, v_minus);
  ImpactSolution sol = solveImpact(sys_, gaps_, t_, q_, v_minus, set, ws_, -1.0, opt_.lcp);
  ++sum_.lcp_solves;
  sum_.max_complementarity_residual = std::max(sum_.max_complementarity_residual, sol.lcp.residual);
  const double T_plus = sys_.kineticEnergy(q_, sol.v_plus);
  for (int k : set) {
    if (sol.impulse[k] == 0.0 && (active_[static_cast<std::size_t>(k)] || sol.gdot_minus[k] >= 0.0)) continue;
    ImpactRecord rec;
    rec.t = t_;
    rec.contact = k;
    rec.name = gaps_.gapName(k);
    rec.v_minus = -sol.gdot_minus[k];
    rec.v_plus = sol.gdot_plus[k];
    rec.impulse = sol.impulse[k];
    rec.kinetic_energy_loss = T_minus - T_plus;
    rec.restitution = gaps_.restitution(k);
    rec.effective_mass = 1.0 / ws_.J_N.row(k).dot(ws_.PJ_Nt.col(k));
    rec.closed_form_loss = set.size() == 1 ? (1.0 - rec.restitution * rec.restitution) * 0.5 * rec.effective_mass *
                                                 rec.v_minus * rec.v_minus
                                           : std::numeric_limits<double>::quiet_NaN();
    sum_.impacts.push_back(rec);
  }
  v_ = sol.v_plus;
  carry_v_.setZero();
  observe(v_minus, false);
  zeno_now_ = false;
  if (sol.gdot_minus[trigger] < 0.0) checkZeno(trigger);
  if (zeno_now_) {
    // The rest of the accumulation: a plastic impact now, then persistent contact.
    ImpactSolution plastic = solveImpact(sys_, gaps_, t_, q_, v_minus, set, ws_, 0.0, opt_.lcp);
    ++sum_.lcp_solves;
    sum_.max_complementarity_residual = std::max(sum_.max_complementarity_residual, plastic.lcp.residual);
    v_ = plastic.v_plus;
  }
  settleContacts();
}

void ContactRun::settleContacts(int released) {
  // Every closed gap that neither separates nor closes is a candidate for contact; the
  // acceleration LCP decides which push.
  evaluateContactTerms(sys_, gaps_, t_, q_, v_, ws_);
  const Vector gdot = ws_.J_N * v_ + ws_.g_t;
  std::vector<int> candidates;
  for (int k = 0; k < ng_; ++k) {
    opened_[static_cast<std::size_t>(k)] = 0;
    if (k == released) {
      opened_[static_cast<std::size_t>(k)] = 1;
    } else if (ws_.g[k] <= opt_.gap_tolerance) {
      if (std::abs(gdot[k]) <= opt_.velocity_tolerance || active_[static_cast<std::size_t>(k)]) {
        candidates.push_back(k);
      } else {
        opened_[static_cast<std::size_t>(k)] = 1;
      }
    }
  }
  std::vector<char> was = active_;
  std::fill(active_.begin(), active_.end(), 0);
  if (!candidates.empty()) {
    ++sum_.acceleration_solves;
    ++sum_.lcp_solves;
    const ContactAccelerations acc =
        solveContactAccelerations(sys_, gaps_, t_, q_, v_, candidates, ContactLaw::Complementarity, ws_, opt_.lcp);
    sum_.max_complementarity_residual = std::max(sum_.max_complementarity_residual, acc.lcp.residual);
    for (int k : candidates) {
      if (acc.lambda_N[k] > 0.0) {
        active_[static_cast<std::size_t>(k)] = 1;
      } else {
        opened_[static_cast<std::size_t>(k)] = 1;
      }
    }
  }
  // Entering persistent contact, a gap may still move by up to velocity_tolerance: remove that
  // (the smallest velocity change that makes ġ = 0 on the active gaps, keeping J q̇) so that
  // holding g̈ = 0 does not carry the gap away.
  const std::vector<int> held = activeSet();
  if (!held.empty()) {
    evaluateContactTerms(sys_, gaps_, t_, q_, v_, ws_);
    const Matrix W = delassus(gaps_, held, ws_);
    Vector gdot_A(static_cast<Eigen::Index>(held.size()));
    Matrix PJt_A(ws_.PJ_Nt.rows(), gdot_A.size());
    for (std::size_t a = 0; a < held.size(); ++a) {
      gdot_A[static_cast<Eigen::Index>(a)] = ws_.J_N.row(held[a]).dot(v_) + ws_.g_t[held[a]];
      PJt_A.col(static_cast<Eigen::Index>(a)) = ws_.PJ_Nt.col(held[a]);
    }
    v_ -= PJt_A * W.completeOrthogonalDecomposition().solve(gdot_A);
    carry_v_.setZero();
  }
  for (int k = 0; k < ng_; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (active_[i] != was[i]) {
      sum_.transitions.push_back({t_, k, gaps_.gapName(k), active_[i] ? "persistent" : "lift_off"});
    }
  }
  observe(v_, true);
}

void ContactRun::run(const State& initial) {
  t_ = initial.t;
  q_ = initial.q;
  v_ = initial.v;
  carry_q_ = Vector::Zero(q_.size());
  carry_v_ = Vector::Zero(v_.size());
  evaluateContactTerms(sys_, gaps_, t_, q_, v_, ws_);
  const Vector gdot = ws_.J_N * v_ + ws_.g_t;
  int closing = -1;
  for (int k = 0; k < ng_; ++k) {
    if (ws_.g[k] <= opt_.gap_tolerance && gdot[k] < -opt_.velocity_tolerance && closing < 0) closing = k;
  }
  if (closing >= 0) {
    impact(closing);  // observes the state before and after
  } else {
    settleContacts();  // observes the initial state
  }
  long zero_length_events = 0;
  while (t_ < opt_.end_time) {
    if (opt_.interrupt && opt_.interrupt->load()) {
      sum_.status = RunStatus::Interrupted;
      sum_.message = "interrupted at t = " + formatDouble(t_) + " s";
      return;
    }
    double h = std::min(opt_.dt, opt_.end_time - t_);
    if (opt_.end_time - (t_ + h) < 1e-9 * opt_.dt) h = opt_.end_time - t_;
    const bool last_step = h == opt_.end_time - t_;
    Vector dq, dv;
    rk4Increments(t_, q_, v_, h, dq, dv);
    const Vector q1 = q_ + dq, v1 = v_ + dv;
    if (!q1.allFinite() || !v1.allFinite()) {
      sum_.status = RunStatus::NonFiniteState;
      sum_.message = "the step from t = " + formatDouble(t_) + " s gave a non-finite state";
      return;
    }
    // The first event inside the step.
    int first = -1;
    double h_first = std::numeric_limits<double>::infinity();
    for (int k = 0; k < ng_; ++k) {
      const double f_end = eventValue(k, t_ + h, q1, v1);
      if (f_end > 0.0) continue;
      const double hk = firstCrossing(k, h, f_end);
      if (hk >= 0.0 && hk < h_first) {
        h_first = hk;
        first = k;
      }
    }
    if (first < 0) {
      kahanAdd(q_, dq, carry_q_);
      kahanAdd(v_, dv, carry_v_);
      advanceTime(h);
      if (last_step || t_ > opt_.end_time) {
        t_ = opt_.end_time;  // the last step lands on the end exactly
        carry_t_ = 0.0;
      }
      ++sum_.steps;
      std::fill(opened_.begin(), opened_.end(), 0);
      observe(v_, true);
      zero_length_events = 0;
      continue;
    }
    if (h_first > 0.0) {
      advance(h_first);
      ++sum_.steps;
      zero_length_events = 0;
    } else if (++zero_length_events > 100) {
      sum_.status = RunStatus::SolverFailure;
      sum_.message = "gap '" + gaps_.gapName(first) + "' keeps closing at t = " + formatDouble(t_) +
                     " s without the time advancing (100 events in a row)";
      return;
    }
    if (active_[static_cast<std::size_t>(first)]) {
      // Lift-off: λ_N reached zero; release it and let the LCP re-decide the rest.
      settleContacts(first);
    } else {
      impact(first);
      if (static_cast<long>(sum_.impacts.size()) > opt_.max_impacts) {
        sum_.status = RunStatus::SolverFailure;
        sum_.message = "more than " + std::to_string(opt_.max_impacts) + " impacts by t = " + formatDouble(t_) +
                       " s without an accumulation detected (ContactRunOptions::max_impacts)";
        return;
      }
    }
  }
  sum_.status = RunStatus::Success;
}

}  // namespace

ContactSummary simulateContact(const ConstrainedSystem& system, const UnilateralConstraints& gaps,
                               const State& initial, const ContactRunOptions& options,
                               const ContactObserver& observer) {
  options.validate();
  checkDimensions(system);
  checkStateSizes(system, initial.q, initial.v);
  if (system.nu() > 0) {
    throw std::invalid_argument("event-driven contact: model '" + system.name() + "' has " +
                                std::to_string(system.nu()) + " inputs; the contact run takes none yet");
  }
  if (!(options.end_time > initial.t)) {
    throw std::invalid_argument("ContactRunOptions::end_time = " + formatDouble(options.end_time) +
                                " must be after the initial time " + formatDouble(initial.t));
  }
  validateGaps(system, gaps, initial.q, initial.t);
  if (gaps.ng() > 0) {
    Vector g(gaps.ng());
    gaps.gap(initial.q, initial.t, g);
    for (int k = 0; k < gaps.ng(); ++k) {
      if (!(g[k] >= -options.gap_tolerance)) {
        throw std::invalid_argument("event-driven contact: the start penetrates gap " + std::to_string(k) + " '" +
                                    gaps.gapName(k) + "': g = " + formatDouble(g[k]) + " < -gap_tolerance = -" +
                                    formatDouble(options.gap_tolerance));
      }
    }
  }
  ContactSummary summary;
  const auto start = std::chrono::steady_clock::now();
  ContactRun run(system, gaps, options, observer, summary);
  // Trouble during the run (a failed solve, a model or observer that throws) ends it with a
  // status and the message; what was observed stays observed.
  try {
    run.run(initial);
  } catch (const std::exception& e) {
    summary.status = RunStatus::ModelError;
    summary.message = e.what();
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace kktdae::contact
