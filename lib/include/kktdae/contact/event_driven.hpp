#pragma once
/// @file
/// Event-driven integration of a model with gaps: exact (to the integrator's accuracy) between
/// contact events, with every event located inside its step and the jump solved there.
///
/// Between events the active gaps (those in persistent contact) are held closed, g̈ = 0, with the
/// minimum-norm forces λ_N of the equality W λ_N = −b (contact_dynamics.hpp); every other gap is
/// free. Two kinds of event end a free interval:
///  - a free gap closes (g falls to 0): Newton's impact law on the closed gaps (an LCP on the
///    Delassus matrix), then the acceleration LCP decides which closed gaps stay in contact;
///  - an active gap's force falls to 0 (lift-off): the gap is released.
/// An event is located by a root search on the step itself — each trial is the integrator's step
/// from the start of the step to the trial time — so the located time is the root of the discrete
/// motion (for a polynomial free flight, the exact root) to ContactRunOptions::time_tolerance.
///
/// Impacts on one gap whose intervals shrink geometrically (Zeno: a ball coming to rest by ever
/// smaller bounces) are extrapolated to their accumulation time t∞ = t_n + Δ_n r/(1 − r), with r
/// the ratio of the last two intervals; once t∞ − t_n is below zeno_horizon the remaining bounces
/// are replaced by a plastic impact and the gap becomes a persistent contact. t∞ is reported.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kktdae/contact/contact_dynamics.hpp"
#include "kktdae/core/state.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/simulate/summary.hpp"

namespace kktdae::contact {

/// The settings of one simulateContact() run: the step, the end, the tolerances of event location
/// and contact, and the guards. validate() checks them before the run.
struct ContactRunOptions {
  /// Only Integrator::Rk4 runs event-driven contact so far; any other is refused by name before
  /// the run.
  Integrator integrator = Integrator::Rk4;
  /// The step [s] > 0 between events. The located event times do not depend on it for a
  /// polynomial free flight; otherwise the motion carries RK4's O(dt⁴) error.
  double dt = 1e-3;
  /// The run ends here [s] (> t0).
  double end_time = 10.0;
  /// Bracket width [s] of the root search that locates a contact event, in (0, 1e-13].
  double time_tolerance = 1e-14;
  /// A gap within this of zero counts as closed (gap units, > 0). A start with g < −gap_tolerance
  /// is refused, naming the gap.
  double gap_tolerance = 1e-9;
  /// A closed gap separating more slowly than this (gap units per s, > 0) after an impact stays
  /// in contact if the acceleration LCP pushes on it.
  double velocity_tolerance = 1e-9;
  /// Impacts of one gap are an accumulation (Zeno) when their intervals shrink geometrically and
  /// the extrapolated time left to t∞ is below this [s] (> 0).
  double zeno_horizon = 1e-6;
  /// Stop with a failure after this many impacts (a guard; ≥ 1).
  long max_impacts = 100000;
  /// The settings of every LCP the run solves (impacts, and which closed gaps stay in contact).
  LcpOptions lcp;
  /// Polled before every step: once true, the run ends as Interrupted and keeps what it observed.
  const std::atomic<bool>* interrupt = nullptr;

  /// Throws std::invalid_argument naming the field and value, and naming the integrator when it
  /// is not rk4.
  void validate() const;
};

/// One impact of one gap (the speeds along the gap's normal, in gap units per second).
struct ImpactRecord {
  double t = 0.0;           ///< located time [s]
  int contact = -1;         ///< the gap's index
  std::string name;         ///< its name
  double v_minus = 0.0;     ///< approach speed −ġ⁻ (> 0 for a gap closing)
  double v_plus = 0.0;      ///< separation speed ġ⁺ (= e · v_minus for an isolated impact)
  double impulse = 0.0;     ///< Λ ≥ 0
  double kinetic_energy_loss = 0.0;  ///< T(q̇⁻) − T(q̇⁺) of the whole impact [J]
  double restitution = 0.0;     ///< the gap's e
  double effective_mass = 0.0;  ///< 1 / W_kk, the mass the gap's normal sees through the equalities
  /// (1 − e²) · ½ · effective_mass · v_minus², the loss Newton's law predicts when this gap is the
  /// only one in the impact (NaN when several gaps took part: then the LCP couples them).
  double closed_form_loss = 0.0;
};

/// A change of the contact set other than an impact.
struct ContactTransition {
  double t = 0.0;    ///< time of the change [s]
  int contact = -1;  ///< the gap's index
  std::string name;  ///< its name
  std::string kind;  ///< "persistent" (a gap enters persistent contact) or "lift_off"
};

/// What simulateContact() reports of a run: how it ended, what it counted, every impact and
/// contact change, and the accuracy it kept.
struct ContactSummary {
  RunStatus status = RunStatus::NotRun;  ///< how the run ended (Success once it reached end_time)
  std::string message;                   ///< what happened, where and when
  long steps = 0;                        ///< accepted steps (event steps included)
  long acceleration_solves = 0;          ///< contact-acceleration solves (RK4 stages, event trials)
  long lcp_solves = 0;                   ///< impact and acceleration LCPs
  long root_searches = 0;                ///< located events
  long root_trials = 0;                  ///< trial steps of the root searches
  /// Every impact in time order, one record per gap that took an impulse (several at one t when
  /// gaps close together); the run fails once it holds more than max_impacts.
  std::vector<ImpactRecord> impacts;
  /// Every gap entering persistent contact and every lift-off, in time order.
  std::vector<ContactTransition> transitions;
  std::optional<double> zeno_time;       ///< the extrapolated accumulation time t∞ [s], when detected
  int zeno_contact = -1;                 ///< its gap
  double max_complementarity_residual = 0.0;  ///< over every LCP solved
  double max_phi_inf = 0.0;              ///< max ‖φ‖∞ over the observed states
  double t_final = 0.0;                  ///< time of the last state reached
  double wall_seconds = 0.0;             ///< wall-clock time of the run [s] (after the checks before it)

  /// True when the run reached end_time (status Success).
  bool ok() const { return status == RunStatus::Success; }
  /// "success: t = 10 s, 10012 steps, 158 impacts, zeno_time 8.578949179 s (gap 0), max
  /// complementarity residual 0", then "; " and the message when there is one.
  std::string briefReport() const;
};

/// Told of every state reached: (t, q [nq], q̇ [nq], λ [nc], λ_N [ng]); at an impact twice, with
/// q̇⁻ and with q̇⁺ (the same t).
using ContactObserver = std::function<void(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda,
                                           ConstVectorRef lambda_N)>;

/// Runs `system` with `gaps` from `initial` to options.end_time, event-driven.
///
/// Throws std::invalid_argument before the run for invalid options, wrong sizes, a model with
/// inputs, invalid gaps (validateGaps()) and a start with a gap below −gap_tolerance (naming the
/// gap and its value). A start with a gap closed and closing is an impact at t0. Numerical trouble
/// during the run (a failed solve, an exception from the model or the observer, too many impacts)
/// ends it with a failed status and a message; everything observed stays observed.
ContactSummary simulateContact(const ConstrainedSystem& system, const UnilateralConstraints& gaps,
                               const State& initial, const ContactRunOptions& options,
                               const ContactObserver& observer = {});

}  // namespace kktdae::contact
