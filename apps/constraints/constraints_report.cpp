#include "constraints/constraints_report.hpp"

#include "common/run_warnings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "common/gnuplot.hpp"
#include "common/interrupt.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"

namespace kktdae::apps {
namespace {

const ChainModeResult* find(const std::vector<ChainModeResult>& results, const std::string& name) {
  for (const auto& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string divergenceNote(const ChainModeResult& r) {
  return (stoppedByInterrupt(r.summary) ? "stopped: " : "diverged: ") + r.summary.message;
}

/// metrics.json's per-mode status: "ok", "diverged", "interrupted" (a signal stopped it), or
/// "stopped_by_event" (--stop-when's condition became true).
const char* modeStatus(const ChainModeResult& r) {
  if (r.summary.stoppedByEvent()) return "stopped_by_event";
  return !r.diverged() ? "ok" : stoppedByInterrupt(r.summary) ? "interrupted" : "diverged";
}

/// --stop-when's located events: name, component, time, step, direction and the state there.
nlohmann::json eventsJson(const Summary& summary) {
  nlohmann::json list = nlohmann::json::array();
  for (const FiredEvent& fired : summary.events) {
    nlohmann::json e;
    e["name"] = fired.name;
    e["component"] = fired.component;
    e["time"] = fired.time;
    e["step"] = fired.step;
    e["direction"] = std::string(toString(fired.direction));
    e["value"] = fired.value;
    e["q"] = std::vector<double>(fired.q.data(), fired.q.data() + fired.q.size());
    e["v"] = std::vector<double>(fired.v.data(), fired.v.data() + fired.v.size());
    e["lambda"] = std::vector<double>(fired.lambda.data(), fired.lambda.data() + fired.lambda.size());
    list.push_back(e);
  }
  return list;
}

/// A mode that failed before its first state has no metrics: its zeros would read as perfect.
bool hasMetrics(const ChainModeResult& r) { return r.metrics.samples > 0; }

std::string tableNumber(const ChainModeResult& r, double value, int width) {
  char text[64];
  if (hasMetrics(r)) {
    std::snprintf(text, sizeof text, "%*.4e", width, value);
  } else {
    std::snprintf(text, sizeof text, "%*s", width, "n/a");
  }
  return text;
}

nlohmann::json metricOrNull(const ChainModeResult& r, double value) {
  return hasMetrics(r) ? metricNumber(value) : nlohmann::json(nullptr);
}

/// The chapter's verdict compares none with baumgarte: only when both ran.
bool hasVerdict(const ConstraintsFlags& flags) {
  return flags.stabilization == "all" || flags.stabilization == "every";
}

const char* const kAsExpected = "as expected";

std::string chapterVerdict(const ConstraintsFlags& flags, const std::vector<ChainModeResult>& results) {
  const ChainModeResult* none = find(results, "none");
  const ChainModeResult* baumgarte = find(results, "baumgarte");
  if (flags.integrator == "ida_ggl") {
    // GGL enforces φ and φ̇ itself and drops the Baumgarte terms: the two modes are one run.
    return "not applicable (ida_ggl holds the links itself; both modes are the same run)";
  }
  if (stoppedByInterrupt(none->summary) || stoppedByInterrupt(baumgarte->summary)) {
    return "not judged (interrupted by a signal before both modes finished)";
  }
  if (flags.integrator == "rattle") {
    // RATTLE solves φ = 0 and J q̇ = 0 at every step and ignores the gains: the same run twice.
    return "not applicable (rattle holds the links itself; both modes are the same run)";
  }
  if (none->diverged() || baumgarte->diverged()) {
    return "UNEXPECTED — investigate (a mode diverged; its numbers cover the steps before)";
  }
  return none->metrics.max_violation > 3.0 * baumgarte->metrics.max_violation ? kAsExpected
                                                                                : "UNEXPECTED — investigate";
}

/// The run's settings as metrics.json and seeds.json record them (seed and tilt excepted).
nlohmann::json runSettings(const ConstraintsRun& run) {
  const ConstraintsFlags& flags = *run.flags;
  nlohmann::json doc;
  doc["system"] = run.system_name;
  doc["links"] = run.links;
  doc["integrator"] = flags.integrator;
  if (isAdaptive(parseIntegrator(flags.integrator))) {
    doc["rtol"] = flags.rtol;
    doc["atol"] = flags.atol;
  }
  doc["form"] = flags.form;
  doc["dt"] = flags.dt;
  doc["steps"] = run.steps;
  doc["baumgarte"] = flags.baumgarte_omega;
  doc["baumgarte_auto"] = flags.baumgarte == "auto";
  // Only with auto-measured, so that every other run keeps its bytes.
  if (flags.baumgarte == "auto-measured") {
    doc["baumgarte_auto_measured"] = true;
    doc["baumgarte_measured_limit"] = flags.baumgarte_measured_limit > 0.0 ? nlohmann::json(flags.baumgarte_measured_limit)
                                                                          : nlohmann::json(nullptr);
    doc["baumgarte_reasoning"] = flags.baumgarte_reasoning;
  }
  if (flags.baumgarte == "auto-scan") {
    const kktdae::AdaptiveGainTuning& t = flags.baumgarte_tuning;
    doc["baumgarte_auto_scan"] = {{"used", t.used},
                                  {"rule_omega", t.rule_omega},
                                  {"smoothed_best_omega", t.best.smoothed_best_omega},
                                  {"band_low", t.best.band_low},
                                  {"band_high", t.best.band_high},
                                  {"refined", t.refined},
                                  {"runs", t.runs},
                                  {"model_calls", t.model_calls}};
    doc["baumgarte_reasoning"] = flags.baumgarte_reasoning;
  }
  return doc;
}

/// One mode's entry under metrics.json's "results" (and each seeds.json row's).
nlohmann::json modeMetrics(const ChainModeResult& r, bool with_events) {
  nlohmann::json m;
  m["max_violation"] = metricOrNull(r, r.metrics.max_violation);
  m["final_violation"] = metricOrNull(r, r.metrics.final_violation);
  m["energy_rel_max"] = metricOrNull(r, r.metrics.energy_rel_max);
  m["tip_final"] = hasMetrics(r) ? nlohmann::json{roundDecimals(r.metrics.tip_final.x(), 6),
                                                  roundDecimals(r.metrics.tip_final.y(), 6),
                                                  roundDecimals(r.metrics.tip_final.z(), 6)}
                                 : nlohmann::json(nullptr);
  m["status"] = modeStatus(r);
  m["diverged_at_step"] = r.diverged() ? nlohmann::json(r.summary.failed_step) : nlohmann::json(nullptr);
  m["steps_completed"] = r.summary.steps;
  m["kkt_solves"] = r.summary.kkt_solves;
  m["projections"] = r.summary.projections;
  m["projection_iterations"] = r.summary.projection_iterations;
  if (r.diverged()) m["message"] = r.summary.message;
  if (with_events) {  // new keys only when an event was asked for: the chapter's bytes stay
    m["events"] = eventsJson(r.summary);
    m["event_kkt_solves"] = r.summary.event_kkt_solves;
  }
  return m;
}

}  // namespace

std::string formatTable(const ConstraintsRun& run, const std::vector<ChainModeResult>& results) {
  const ConstraintsFlags& flags = *run.flags;
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line, "integrated %s (%s) for %ld steps of %s s -> %.2f s of sim time\n",
                run.system_name.c_str(), flags.integrator.c_str(), run.steps, pythonRepr(flags.dt).c_str(),
                static_cast<double>(run.steps) * flags.dt);
  text += line;
  // `every` adds the extra work each mode costs; the seed's own columns stay as the chapter prints them.
  const bool costs = flags.stabilization == "every";
  std::snprintf(line, sizeof line, "%-16s%16s%18s%16s", "stabilization", "max |len err|", "final |len err|",
                "energy rel_max");
  text += line;
  if (costs) {
    std::snprintf(line, sizeof line, "%12s%14s", "KKT solves", "proj. iter.");
    text += line;
  }
  text += "\n";
  for (const ChainModeResult& r : results) {
    std::snprintf(line, sizeof line, "%-16s", r.name.c_str());
    text += line + tableNumber(r, r.metrics.max_violation, 16) + tableNumber(r, r.metrics.final_violation, 18) +
            tableNumber(r, r.metrics.energy_rel_max, 16);
    if (costs) {
      std::snprintf(line, sizeof line, "%12ld%14ld", r.summary.kkt_solves, r.summary.projection_iterations);
      text += line;
    }
    if (r.diverged()) text += "   " + divergenceNote(r);
    if (r.summary.stoppedByEvent()) text += "   " + r.summary.message;
    text += "\n";
  }
  if (hasVerdict(flags)) {
    text += "constraint drift none >> baumgarte (stabilization holds the links): " + chapterVerdict(flags, results) + "\n";
  }
  // Where the library used something other than what was asked (ida_ggl drops Baumgarte).
  for (const ChainModeResult& r : results) {
    if (!r.summary.notes.empty()) text += "notes (" + r.name + "): " + r.summary.notes + "\n";
    const std::string warnings = describeWarnings(r.summary);
    if (!warnings.empty()) text += warnings + " (" + r.name + ")\n";
  }
  return text;
}

std::vector<std::string> constraintsFiles() {
  return {"metrics.json", "timing.json", "recording.csv", "violation.gp", "violation.png", "energy.gp",
          "energy.png", "tip_path.gp", "tip_path.png", "seeds.csv", "seeds.json", "seeds_timing.json"};
}

void writeMetrics(const ConstraintsRun& run, const std::vector<ChainModeResult>& results) {
  nlohmann::json doc = runSettings(run);
  doc["tilt"] = run.tilt;
  doc["seed"] = run.flags->seed;
  nlohmann::json modes = nlohmann::json::object();
  for (const ChainModeResult& r : results) modes[r.name] = modeMetrics(r, run.flags->stop_when.has_value());
  if (run.flags->stop_when) doc["stop_when"] = *run.flags->stop_when;
  doc["results"] = modes;
  writeJson(*run.dir, "metrics.json", doc);
}

void writeTiming(const ConstraintsRun& run, const std::vector<ChainModeResult>& results) {
  nlohmann::json doc;
  for (const ChainModeResult& r : results) {
    nlohmann::json m;
    m["wall_seconds"] = r.summary.wall_seconds;
    m["steps"] = r.summary.steps;
    m["kkt_solves"] = r.summary.kkt_solves;
    m["seconds_per_step"] = r.summary.steps > 0 ? r.summary.wall_seconds / static_cast<double>(r.summary.steps) : 0.0;
    doc["modes"][r.name] = m;
  }
  doc["note"] = "wall-clock times of the library's simulate() per mode; not reproducible, unlike metrics.json";
  writeJson(*run.dir, "timing.json", doc);
}

RecordingOutcome writeRecording(const ConstraintsRun& run, const std::vector<ChainModeResult>& results) {
  std::string csv = "step,t";
  for (const ChainModeResult& r : results) {
    for (const char* column : {"violation", "energy", "tip_x", "tip_y"}) csv += "," + r.name + "_" + column;
  }
  csv += "\n";
  for (long step = 0; step <= run.steps; ++step) {
    const double t = static_cast<double>(step) * run.flags->dt;
    csv += std::to_string(step) + "," + csvNumber(t);
    for (const ChainModeResult& r : results) {
      const auto i = static_cast<std::size_t>(step);
      if (i < r.trace.size()) {
        // A value that overflowed (energy of a state near 1e200) is an empty field, as after a
        // failure; metrics.json has the mode's status.
        csv += "," + csvNumber(r.trace.violation[i]) + "," + csvNumber(r.trace.energy[i]) + "," +
               csvNumber(r.trace.tip_x[i]) + "," + csvNumber(r.trace.tip_y[i]);
      } else {
        csv += ",,,,";  // the mode diverged before this step
      }
    }
    csv += "\n";
  }
  run.dir->write("recording.csv", csv);
  RecordingOutcome recording;
  recording.lines.push_back("recording: " + run.dir->file("recording.csv").string());

  // Column numbers in recording.csv: step, t, then 4 per mode. A mode that failed before its
  // first state has empty columns; gnuplot refuses a curve without points, so it is left out.
  std::vector<std::size_t> plotted;
  for (std::size_t m = 0; m < results.size(); ++m) {
    if (results[m].trace.size() > 0) plotted.push_back(m);
  }
  if (plotted.empty()) {
    // The run directory removed an earlier run's plots before this run began.
    recording.lines.push_back("plots not drawn: no mode recorded a state");
    return recording;
  }
  auto column = [](std::size_t mode, int offset) { return "$" + std::to_string(3 + 4 * static_cast<int>(mode) + offset); };
  // `expression(m)` is the y value of mode m in gnuplot's `using` syntax.
  auto plotCommand = [&](const std::function<std::string(std::size_t)>& expression) {
    std::string plot = "plot ";
    for (std::size_t m : plotted) {
      plot += (plot.size() > 5 ? ", " : "") + std::string("'recording.csv' using 2:(") + expression(m) +
              ") with lines lw 2 title " + gnuplotQuote(results[m].name) + " noenhanced";
    }
    return plot + "\n";
  };
  const std::string title = run.system_name + " (" + std::to_string(run.links) + " links), " +
                            run.flags->integrator + ", dt " + pythonRepr(run.flags->dt) + " s";
  const std::string header =
      "if (!exists(\"outfile\")) outfile = '%s'\n"
      "set terminal pngcairo size 1000,620 enhanced font 'DejaVu Sans,11'\n"
      "set output outfile\nset datafile separator ','\nset key top left box opaque\nset grid\n";
  auto withOutput = [&](const std::string& png, const std::string& what) {
    char text[512];
    std::snprintf(text, sizeof text, header.c_str(), png.c_str());
    return std::string(text) + "set title " + gnuplotQuote(what + " — " + title) + " noenhanced\n";
  };
  // Zeros (the exact start) have no place on a log axis: 1/0 leaves them out.
  auto positiveOnly = [](const std::string& value) { return value + " > 0 ? " + value + " : 1/0"; };
  const std::string violation = withOutput("violation.png", "constraint violation (link-length error)") +
                                "set logscale y\nset format y '10^{%L}'\nset xlabel 'time t [s]'\n"
                                "set ylabel 'max_k | |d_k| - L_k |  [m]'\n" +
                                plotCommand([&](std::size_t m) { return positiveOnly(column(m, 0)); });
  // The drift relative to the energy scale rather than E itself: a diverging mode reaches 1e300
  // and would flatten every other curve on a linear axis.
  const std::string scale = shortest(run.energy_scale);
  const std::string energy =
      withOutput("energy.png", "energy drift |E − E(0)| / (Σm·g·ΣL)") +
      "set logscale y\nset format y '10^{%L}'\nset xlabel 'time t [s]'\n"
      "set ylabel " + gnuplotQuote("|E(t) − E(0)| / (Σm·g·ΣL = " + pythonRepr(run.energy_scale) + " J)") +
      " noenhanced\n" +
      plotCommand([&](std::size_t m) {
        return positiveOnly("abs(" + column(m, 1) + " - (" + shortest(results[m].trace.energy[0]) + ")) / " + scale);
      });
  const double reach = static_cast<double>(run.links);  // uniform chains of unit links
  std::string tip = withOutput("tip_path.png", "path of the last mass in the x-y plane") +
                    "set size ratio -1\nset xlabel 'tip x [m]'\nset ylabel 'tip y [m]'\n" +
                    // The chain cannot reach past its length; a diverged mode's garbage would set the scale.
                    "set xrange [" + shortest(-1.2 * reach) + ":" + shortest(1.2 * reach) + "]\nset yrange [" +
                    shortest(-1.2 * reach) + ":" + shortest(1.2 * reach) + "]\nplot ";
  for (std::size_t m : plotted) {
    const int x_column = 3 + 4 * static_cast<int>(m) + 2;
    tip += std::string("'recording.csv' using ") + std::to_string(x_column) + ":" + std::to_string(x_column + 1) +
           " with lines lw 1 title " + gnuplotQuote(results[m].name) + " noenhanced, ";
  }
  tip += "'-' using 1:2 with points pt 7 ps 1.5 lc rgb 'black' title 'pivot'\n0,0\ne\n";

  for (const auto& [script, png, body] : {std::tuple<std::string, std::string, std::string>{"violation.gp", "violation.png", violation},
                                          {"energy.gp", "energy.png", energy},
                                          {"tip_path.gp", "tip_path.png", tip}}) {
    const PlotOutcome plot = renderPlot(*run.dir, script, png, body);
    recording.lines.push_back(plot.line());
    recording.outcome = worse(recording.outcome, outcomeOf(plot));
    if (plot.status == PlotStatus::Interrupted) break;  // the rest would only be skipped too
  }
  return recording;
}

namespace {

/// seeds.csv's verdict column: a code rather than the sentence.
std::string verdictCode(const ConstraintsFlags& flags, const std::vector<ChainModeResult>& results) {
  if (flags.integrator == "ida_ggl" || flags.integrator == "rattle") return "not_applicable";
  return chapterVerdict(flags, results) == kAsExpected ? "as_expected" : "unexpected";
}

/// Lowest and highest of `value` over the seeds whose mode `m` has metrics.
struct Range {
  double low = 0.0, high = 0.0;
  long count = 0;
  void add(double value) {
    low = count == 0 ? value : std::min(low, value);
    high = count == 0 ? value : std::max(high, value);
    ++count;
  }
  std::string text(int width) const {
    char out[64];
    if (count == 0) {
      std::snprintf(out, sizeof out, "%*s%*s", width, "n/a", width, "n/a");
    } else {
      std::snprintf(out, sizeof out, "%*.4e%*.4e", width, low, width, high);
    }
    return out;
  }
};

}  // namespace

std::string formatSeedTable(const ConstraintsRun& run, const std::vector<SeedRun>& runs, int threads) {
  const ConstraintsFlags& flags = *run.flags;
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line,
                "integrated %s (%s) for %ld steps of %s s -> %.2f s of sim time, once per seed: %zu seeds on %d "
                "thread%s\n",
                run.system_name.c_str(), flags.integrator.c_str(), run.steps, pythonRepr(flags.dt).c_str(),
                static_cast<double>(run.steps) * flags.dt, runs.size(), threads, threads == 1 ? "" : "s");
  text += line;
  std::snprintf(line, sizeof line, "%-16s%28s%28s%10s\n", "", "max |len err|", "energy rel_max", "");
  text += line;
  std::snprintf(line, sizeof line, "%-16s%14s%14s%14s%14s%10s\n", "stabilization", "lowest", "highest", "lowest",
                "highest", "diverged");
  text += line;
  const std::vector<ChainModeResult>& first = runs.front().results;
  for (std::size_t m = 0; m < first.size(); ++m) {
    Range violation, energy;
    long diverged = 0;
    for (const SeedRun& seed_run : runs) {
      const ChainModeResult& r = seed_run.results[m];
      if (r.diverged()) ++diverged;
      if (!hasMetrics(r)) continue;
      violation.add(r.metrics.max_violation);
      energy.add(r.metrics.energy_rel_max);
    }
    std::snprintf(line, sizeof line, "%-16s%s%s%10ld\n", first[m].name.c_str(), violation.text(14).c_str(),
                  energy.text(14).c_str(), diverged);
    text += line;
  }
  if (hasVerdict(flags)) {
    std::size_t held = 0;
    for (const SeedRun& seed_run : runs) held += chapterVerdict(flags, seed_run.results) == kAsExpected ? 1 : 0;
    std::snprintf(line, sizeof line,
                  "constraint drift none >> baumgarte (stabilization holds the links): as expected for %zu of %zu "
                  "seeds\n",
                  held, runs.size());
    text += line;
  }
  return text;
}

void writeSeedRows(const ConstraintsRun& run, const std::vector<SeedRun>& runs) {
  const ConstraintsFlags& flags = *run.flags;
  const std::vector<ChainModeResult>& first = runs.front().results;
  std::string csv = "seed,tilt";
  for (const ChainModeResult& r : first) {
    for (const char* column : {"max_violation", "final_violation", "energy_rel_max", "tip_x", "tip_y", "status",
                               "steps_completed"}) {
      csv += "," + r.name + "_" + column;
    }
  }
  csv += hasVerdict(flags) ? ",verdict\n" : "\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const SeedRun& seed_run : runs) {
    csv += std::to_string(seed_run.seed) + "," + shortest(seed_run.tilt);
    nlohmann::json modes = nlohmann::json::object();
    for (const ChainModeResult& r : seed_run.results) {
      // A mode without a single state has no numbers: empty fields, as in recording.csv.
      const auto number = [&](double value) { return hasMetrics(r) ? csvNumber(value) : std::string(); };
      csv += "," + number(r.metrics.max_violation) + "," + number(r.metrics.final_violation) + "," +
             number(r.metrics.energy_rel_max) + "," + number(r.metrics.tip_final.x()) + "," +
             number(r.metrics.tip_final.y()) + "," + modeStatus(r) + "," +
             std::to_string(r.summary.steps);
      modes[r.name] = modeMetrics(r, false);
    }
    nlohmann::json row = {{"seed", seed_run.seed}, {"tilt", seed_run.tilt}, {"results", modes}};
    if (hasVerdict(flags)) {
      csv += "," + verdictCode(flags, seed_run.results);
      row["verdict"] = chapterVerdict(flags, seed_run.results);
    }
    csv += "\n";
    rows.push_back(row);
  }
  run.dir->write("seeds.csv", csv);
  nlohmann::json doc = runSettings(run);
  doc["seeds"] = flags.seeds_text.value_or("");
  doc["rows"] = rows;
  writeJson(*run.dir, "seeds.json", doc);
}

void writeSeedTiming(const ConstraintsRun& run, const std::vector<SeedRun>& runs, int threads, double wall_seconds) {
  double runs_seconds = 0.0;
  for (const SeedRun& seed_run : runs) {
    for (const ChainModeResult& r : seed_run.results) runs_seconds += r.summary.wall_seconds;
  }
  nlohmann::json doc;
  doc["seeds"] = runs.size();
  doc["threads"] = threads;
  doc["wall_seconds"] = wall_seconds;
  doc["runs_wall_seconds_sum"] = runs_seconds;
  doc["note"] = "wall_seconds: the whole sweep; runs_wall_seconds_sum: simulate()'s own wall clock added over "
                "every seed and mode (their ratio is the cores kept busy); not reproducible, unlike seeds.json";
  writeJson(*run.dir, "seeds_timing.json", doc);
}

}  // namespace kktdae::apps
