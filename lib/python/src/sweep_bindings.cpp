// kktdae/parallel: sweep(), many simulate() runs on the library's thread pool with the GIL released.
// The bindings only gather the runs, hand them to kktdae::sweep and turn what comes back into
// SimulationResults; the runs are the library's.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/parallel/sweep.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "recording_budget.hpp"
#include "sigint_bridge.hpp"
#include "simulation_result.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// One run of a sweep, gathered under the GIL: the model, the start and the options, checked
/// before any thread starts.
struct SweepInput {
  /// Holds the model while the GIL is released: the caller's list could drop it meanwhile (another
  /// Python thread may run then).
  py::object owner;
  const ConstrainedSystem* system = nullptr;
  State initial;
  SimulationOptions options;
};

/// What one run leaves, made on a worker thread without Python.
struct SweepOutcome {
  Summary summary;
  std::optional<TrajectoryRecording> recording;
  std::string refusal;  ///< the recording budget's, when it stopped the run
};

/// `value` as a list of `count` items: the items of a list or tuple, or `value` repeated.
std::vector<py::object> broadcast(py::handle value, std::size_t count) {
  std::vector<py::object> items;
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    for (py::handle item : value) items.push_back(py::reinterpret_borrow<py::object>(item));
  } else {
    items.assign(count, py::reinterpret_borrow<py::object>(value));
  }
  return items;
}

/// How many runs the arguments describe: the common length of those given as lists (1 if none).
std::size_t runCount(py::handle system, py::handle initial, py::handle options) {
  std::optional<std::size_t> count;
  std::string first;
  const std::pair<const char*, py::handle> arguments[] = {{"system", system}, {"initial", initial}, {"options", options}};
  for (const auto& [name, value] : arguments) {
    if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) continue;
    const std::size_t size = py::len(value);
    if (count && *count != size) {
      throw py::value_error("sweep: " + first + " has " + std::to_string(*count) + " items but " + name + " has " +
                            std::to_string(size) + "; the lists must have one item per run");
    }
    count = size;
    first = name;
  }
  return count.value_or(1);
}

/// Run `index`'s item `name`, converted, or TypeError naming the run, the argument and the type.
template <typename T>
const T& itemAs(const py::object& item, std::size_t index, const char* name, const char* expected) {
  try {
    return item.cast<const T&>();
  } catch (const py::cast_error&) {
    throw py::type_error("sweep: run " + std::to_string(index) + "'s " + name + " must be " + expected + ", got " +
                         std::string(py::str(py::type::handle_of(item).attr("__name__"))));
  }
}

/// The runs, each checked as simulate() checks it (sizes, options), and refused by name when it
/// would call Python: a Python model or events (their g is Python) need the GIL at every step, and
/// the threads would take turns holding it.
std::vector<SweepInput> gatherRuns(py::handle system, py::handle initial, py::handle options) {
  const std::size_t count = runCount(system, initial, options);
  const std::vector<py::object> systems = broadcast(system, count), initials = broadcast(initial, count),
                                all_options = broadcast(options, count);
  std::vector<SweepInput> runs(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& model = itemAs<ConstrainedSystem>(systems[i], i, "system", "a ConstrainedSystem");
    if (dynamic_cast<const PyConstrainedSystem*>(&model) != nullptr) {
      throw py::type_error("sweep: run " + std::to_string(i) + "'s system is " +
                           std::string(py::str(py::type::handle_of(systems[i]).attr("__name__"))) +
                           ", a model written in Python: its methods need the GIL at every step, so its runs "
                           "cannot share the cores; run it with simulate() (a loop, or one process per core "
                           "with multiprocessing: models, options and results pickle)");
    }
    SweepInput& run = runs[i];
    run.owner = systems[i];
    run.system = &model;
    run.initial = itemAs<State>(initials[i], i, "initial", "a State");
    run.options = itemAs<SimulationOptions>(all_options[i], i, "options", "a SimulationOptions");
    if (!run.options.events.empty() || static_cast<bool>(run.options.event_observer)) {
      throw py::type_error("sweep: run " + std::to_string(i) + "'s options have events (or an event_observer), "
                           "which are Python callables needing the GIL at every step; run it with simulate()");
    }
    try {
      checkStateSizes(model, run.initial.q, run.initial.v);
      run.options.validate();
      requireRunLength(run.options, "sweep: run " + std::to_string(i));
    } catch (const std::invalid_argument& error) {
      throw py::value_error("sweep: run " + std::to_string(i) + ": " + error.what());
    }
  }
  return runs;
}

std::vector<SimulationResult> runSweep(py::handle system, py::handle initial, py::handle options, int threads,
                                       bool record) {
  SweepOptions parallel;
  parallel.threads = threads;
  try {
    parallel.validate();
  } catch (const std::invalid_argument& error) {
    throw py::value_error(std::string("sweep: ") + error.what());
  }
  std::vector<SweepInput> runs = gatherRuns(system, initial, options);
  SigintBridge sigint;
  const std::atomic<bool>* interrupt = sigint.flag();
  for (SweepInput& run : runs) run.options.interrupt = interrupt;

  std::vector<SweepOutcome> outcomes;
  {
    py::gil_scoped_release release;  // nothing below calls Python
    outcomes = sweep(
        runs.size(),
        [&](std::size_t i) {
          const SweepInput& run = runs[i];
          SweepOutcome out;
          if (interrupt->load(std::memory_order_relaxed)) {  // Ctrl-C before this run began
            out.summary.status = RunStatus::Interrupted;
            out.summary.message = "not run: the sweep was interrupted before this run began";
            return out;
          }
          std::optional<RecordingBudget> budget;
          if (record) {
            out.recording.emplace(*run.system, 0);
            budget.emplace(*out.recording, expectedObservations(run.options, run.initial.t));
          }
          out.summary = simulate(*run.system, run.initial, run.options,
                                 [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                   if (!out.recording) return;
                                   budget->makeRoom();
                                   out.recording->observe(t, q, v, lambda);
                                 });
          if (budget) out.refusal = budget->refusal();
          return out;
        },
        parallel);
  }

  std::vector<SimulationResult> results(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    results[i].summary = std::move(outcomes[i].summary);
    if (outcomes[i].recording) {
      results[i].recording = py::cast(toRecording(*outcomes[i].recording, violationMeasure(*runs[i].system)));
    }
  }
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].refusal.empty()) continue;
    PyErr_SetString(PyExc_MemoryError, ("sweep: run " + std::to_string(i) + ": " + outcomes[i].refusal).c_str());
    py::error_already_set raised;
    if (PyObject_SetAttrString(raised.value().ptr(), "result", py::cast(results).ptr()) != 0) PyErr_Clear();
    throw raised;
  }
  sigint.raiseIfSignalled(py::cast(results));
  return results;
}

}  // namespace

void bindSweep(py::module_& m) {
  m.def("sweep", &runSweep, py::arg("system"), py::arg("initial"), py::arg("options") = SimulationOptions{},
        py::kw_only(), py::arg("threads") = 0, py::arg("record") = true,
        R"doc(Many simulate() runs on the library's threads, with the GIL released; returns their
SimulationResults in run order.

system, initial and options are each one value, shared by every run, or a list (or tuple) with one
item per run; the lists must have the same length. Run i is simulate(system[i], initial[i], options[i]),
recorded as simulate() records when record=True. threads: worker threads (0: every core; 1: the runs
one after the other on the calling thread); never more than runs. The results are the same, bit for
bit, whatever the thread count (only Summary.wall_seconds differs).

Only models that run in C++ can share the cores: a model written in Python (a ConstrainedSystem or
ModelWrapper subclass) or options with events are refused with a TypeError naming the run (use
simulate(), or multiprocessing: models, options and results pickle). Invalid options or a wrong-sized
state raise ValueError naming the run before any run starts. A run that fails numerically is a failed
summary, as with simulate(); the others go on. Ctrl-C stops every run within a step and raises
KeyboardInterrupt with the results as its attribute `result` (runs not begun: status INTERRUPTED,
"not run"). A recording that would outgrow the memory raises MemoryError naming the run.)doc");
}

}  // namespace kktdae::python
