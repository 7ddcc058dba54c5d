#pragma once
// Shared by four_bar_test.cpp and slider_crank_test.cpp: run a model, record the points B, C, P
// and the energy at every observed state, and compare two such records.

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <vector>

#include "kktdae/models/mechanism_points.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae::testing {

/// B, C, P from a model's q.
using PointsOfState = std::function<MechanismPoints<double>(ConstVectorRef q)>;

/// What a run observed, one entry per observed state.
struct MechanismTrace {
  std::vector<double> t;
  std::vector<MechanismPoints<double>> points;
  std::vector<Vector> q;
  std::vector<double> energy;  ///< the model's T + V
  Summary summary;
};

/// The twin's points: particles 0, 1, 2 are B, C, P.
inline MechanismPoints<double> twinPoints(ConstVectorRef q) {
  return {q.segment<2>(0), q.segment<2>(2), q.segment<2>(4)};
}

/// Runs `system` from `start` and records every observed state; REQUIREs a successful run.
inline MechanismTrace recordRun(const ConstrainedSystem& system, const State& start, const SimulationOptions& options,
                                const PointsOfState& points) {
  MechanismTrace trace;
  trace.summary = simulate(system, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    trace.t.push_back(t);
    trace.points.push_back(points(q));
    trace.q.push_back(q);
    trace.energy.push_back(system.totalEnergy(q, v, t));
  });
  INFO(system.name() << ": " << trace.summary.briefReport());
  REQUIRE(trace.summary.ok());
  return trace;
}

/// max over the common samples and over B, C, P of |x_a − x_b| [m]; the samples must be at the
/// same times.
inline double maxPointDeviation(const MechanismTrace& a, const MechanismTrace& b) {
  REQUIRE(a.t.size() == b.t.size());
  double deviation = 0.0;
  for (std::size_t k = 0; k < a.t.size(); ++k) {
    REQUIRE(a.t[k] == Approx(b.t[k]).margin(1e-12));
    deviation = std::max({deviation, (a.points[k].b - b.points[k].b).norm(), (a.points[k].c - b.points[k].c).norm(),
                          (a.points[k].p - b.points[k].p).norm()});
  }
  return deviation;
}

/// max_t |E(t) − E(0) − work(t)| over a record, with work(k) the work done by inputs up to sample k.
inline double maxEnergyBalanceError(const MechanismTrace& trace, const std::function<double(std::size_t)>& work) {
  double error = 0.0;
  for (std::size_t k = 0; k < trace.t.size(); ++k) {
    error = std::max(error, std::abs(trace.energy[k] - trace.energy[0] - work(k)));
  }
  return error;
}

}  // namespace kktdae::testing
