#pragma once
// What the binding files share: one bind function per layer (each in its own translation unit, so
// an edit recompiles one file), called in this order from module.cpp.
#include <pybind11/pybind11.h>

namespace kktdae {
class ConstrainedSystem;
struct SimulationOptions;
class TrajectoryRecording;
}  // namespace kktdae

namespace kktdae::python {
namespace py = pybind11;

void bindCore(py::module_& m);           // State
void bindSystem(py::module_& m);         // ConstrainedSystem (subclassable), check_derivatives
void bindParametricSystem(py::module_& m);  // ParametricSystem, its derivative check, SpringSliderCrank
void bindModelCheck(py::module_& m);     // check_model, its options, report and findings
void bindModels(py::module_& m);         // the shipped models and their parameters
void bindMultibody(py::module_& m);      // MechanismBuilder, Mechanism, assemble
void bindKkt(py::module_& m);            // KKT options, results, solve_kkt
void bindStabilization(py::module_& m);  // Stabilization, projection, Baumgarte guidance and limits
void bindIntegrators(py::module_& m);    // Integrator, AdaptiveOptions
void bindEvents(py::module_& m);         // Event (Python g and callback), FiredEvent
void bindSimulate(py::module_& m);       // SimulationOptions, Summary, Recording, simulate
void bindSweep(py::module_& m);          // sweep: many runs on the library's threads, the GIL released
/// SimulationOptions.event_observer (a Python callable), added by bindSimulate() from events_bindings.cpp,
/// which holds the Python wrappers of the events' callables.
void bindEventObserver(py::class_<SimulationOptions>& options);
/// A Recording (simulation_result.cpp) of a copy of `recording`'s rows, with `system`'s violation
/// measure: what Simulator.recording hands out while its own recording goes on.
py::object recordingCopy(const TrajectoryRecording& recording, const ConstrainedSystem& system);
void bindContact(py::module_& m);        // joint limits, contact problems, simulate_contact
void bindSimulator(py::module_& m);      // Simulator, the step-at-a-time run
void bindExperiments(py::module_& m);
void bindSensitivity(py::module_& m);    // ParametricMechanism, SensitivityOptions, compute_sensitivities    // seed 000's chain comparison

}  // namespace kktdae::python
