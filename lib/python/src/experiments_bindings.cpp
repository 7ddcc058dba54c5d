// kktdae/experiments: seed 000's chain comparison, the library call behind kktdae-constraints and
// apps/python/constraints.py (so both print the same numbers from the same code), and the motion
// time scale recommend_baumgarte needs for adaptive integrators.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/experiments/adaptive_gain.hpp"
#include "kktdae/experiments/chain_comparison.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {

void bindExperiments(py::module_& m) {
  py::class_<ChainMode> mode(m, "ChainMode", "A named stabilization mode of the chain comparison.");
  mode.def(py::init([](std::string name, Stabilization stabilization) { return ChainMode{std::move(name), stabilization}; }),
           py::arg("name"), py::arg("stabilization"))
      .def_readwrite("name", &ChainMode::name)
      .def_readwrite("stabilization", &ChainMode::stabilization);
  defRepr(mode, {"name", "stabilization"});

  py::class_<ChainRunMetrics> metrics(m, "ChainRunMetrics", "Seed 000's numbers for one run (NaN when nothing was observed).");
  metrics.def_readonly("max_violation", &ChainRunMetrics::max_violation, "max over states of max_k | |d_k| − L_k | [m]")
      .def_readonly("final_violation", &ChainRunMetrics::final_violation, "the same at the last state [m]")
      .def_readonly("energy_rel_max", &ChainRunMetrics::energy_rel_max, "max |E − E0| / (Σm · g · ΣL)")
      .def_property_readonly("tip_final", [](const ChainRunMetrics& r) { return toNumpy(Vector(r.tip_final)); },
                             "last particle at the last state [m], shape (3,)")
      .def_readonly("samples", &ChainRunMetrics::samples, "states observed");
  defRepr(metrics, {"max_violation", "final_violation", "energy_rel_max", "tip_final", "samples"});

  py::class_<ChainTrace> trace(m, "ChainTrace", "Per state: t, link-length violation, energy and the tip's x, y.");
  trace.def_property_readonly("t", [](const ChainTrace& c) { return toNumpy(Eigen::Map<const Vector>(c.t.data(), c.t.size())); })
      .def_property_readonly("violation", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.violation.data(), c.violation.size()));
      })
      .def_property_readonly("energy", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.energy.data(), c.energy.size()));
      })
      .def_property_readonly("tip_x", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.tip_x.data(), c.tip_x.size()));
      })
      .def_property_readonly("tip_y", [](const ChainTrace& c) {
        return toNumpy(Eigen::Map<const Vector>(c.tip_y.data(), c.tip_y.size()));
      })
      .def("__len__", &ChainTrace::size);

  py::class_<ChainModeResult> result(m, "ChainModeResult", "One mode's run: its Summary, metrics and (optional) trace.");
  result.def_readonly("name", &ChainModeResult::name)
      .def_readonly("stabilization", &ChainModeResult::stabilization)
      .def_readonly("summary", &ChainModeResult::summary)
      .def_readonly("metrics", &ChainModeResult::metrics)
      .def_readonly("trace", &ChainModeResult::trace)
      .def_property_readonly("diverged", &ChainModeResult::diverged, "The run did not succeed.");
  defRepr(result, {"name", "metrics", "summary"});

  m.def(
      "run_chain_comparison",
      [](const PendulumChain& chain, const State& initial, const std::vector<ChainMode>& modes,
         const SimulationOptions& options, bool record_trace) {
        checkStateSizes(chain, initial.q, initial.v);
        py::gil_scoped_release release;  // no Python inside: the chain is a C++ model
        return runChainComparison(chain, initial, modes, options, record_trace);
      },
      py::arg("chain"), py::arg("initial"), py::arg("modes"), py::arg("options"), py::arg("record_trace") = false,
      "Seed 000's experiment: runs each mode from `initial` with `options` (its stabilization replaced by the\n"
      "mode's), observing every step, and returns one ChainModeResult per mode. A mode that fails stops there;\n"
      "its metrics cover the states before.");

  py::class_<MotionTimeScale> scale(m, "MotionTimeScale",
                                    "The motion's own rate and the adaptive solver's mean step, from one run without feedback.");
  scale.def_readonly("motion_rate", &MotionTimeScale::motion_rate,
                     "Ω = √(Σ aᵀMa / Σ q̇ᵀMq̇) over the outputs [rad/s] (a pendulum of frequency Ω gives Ω)")
      .def_readonly("mean_step", &MotionTimeScale::mean_step, "duration / steps of the run [s]")
      .def_readonly("summary", &MotionTimeScale::summary, "the run's Summary");
  defRepr(scale, {"motion_rate", "mean_step", "summary"});
  m.def(
      "measure_motion_time_scale",
      [](const ConstrainedSystem& system, const State& start, double t_end, Integrator integrator, double tolerance,
         long outputs) {
        checkStateSizes(system, start.q, start.v);
        if (const auto* python_model = dynamic_cast<const PyConstrainedSystem*>(&system)) {
          python_model->preflight(start);
          return measureMotionTimeScale(system, start, t_end, integrator, tolerance, outputs);  // calls Python: keeps the GIL
        }
        py::gil_scoped_release release;
        return measureMotionTimeScale(system, start, t_end, integrator, tolerance, outputs);
      },
      py::arg("system"), py::arg("start"), py::arg("t_end"), py::arg("integrator"), py::arg("tolerance"),
      py::arg("outputs") = 200,
      "Runs the adaptive `integrator` without Baumgarte terms from `start` to t_end at rtol = atol = tolerance\n"
      "over `outputs` (≥ 4) intervals and measures the motion's rate and the mean step: the motion_rate and\n"
      "mean_step recommend_baumgarte wants for that integrator. Raises ValueError for invalid arguments or a\n"
      "motion at rest; a failed run keeps what it saw (summary says why).");
}

}  // namespace kktdae::python
