#include "compare/compare_report.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/generalized_alpha_flags.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"

namespace kktdae::apps {
namespace {

const WorkPrecisionOptions& optionsOf(const CompareRun& run) { return run.setup->options; }

double atolOf(const CompareRun& run, const WorkPrecisionCase& setting) {
  return optionsOf(run).atol_ratio * setting.rtol;
}

std::string settingText(const WorkPrecisionCase& setting) {
  return isAdaptive(setting.integrator) ? "rtol " + pythonRepr(setting.rtol) : "dt " + pythonRepr(setting.dt);
}

std::string statusText(const Summary& summary) { return summary.ok() ? "ok" : std::string(toString(summary.status)); }

std::string scientific(double value, int width) {
  char text[64];
  if (std::isfinite(value)) {
    std::snprintf(text, sizeof text, "%*.3e", width, value);
  } else {
    std::snprintf(text, sizeof text, "%*s", width, "n/a");
  }
  return text;
}

/// compare.csv's columns, in order; the plot script finds its columns by name here, so the two
/// cannot drift apart.
const std::vector<std::string> kCsvColumns = {
    "integrator",   "kind",          "dt",        "rtol",          "atol",
    "error_at_T",   "max_phi_inf",   "max_phi_dot_inf", "final_phi_inf", "energy_drift",
    "steps",        "rhs_evaluations", "kkt_solves", "jacobian_evaluations", "linear_solver_setups",
    "error_test_failures", "convergence_failures", "status", "notes", "message"};

/// timing.csv's columns: what the timing plot needs beside the wall time, so it reads one file.
const std::vector<std::string> kTimingColumns = {"integrator", "kind", "dt", "rtol", "error_at_T", "rhs_evaluations",
                                                 "wall_seconds", "status"};

std::string columnNumber(const std::vector<std::string>& columns, const std::string& name) {
  const auto found = std::find(columns.begin(), columns.end(), name);
  assert(found != columns.end());
  return std::to_string(found - columns.begin() + 1);
}

std::string csvHeader(const std::vector<std::string>& columns) {
  std::string header;
  for (std::size_t i = 0; i < columns.size(); ++i) header += (i ? "," : "") + columns[i];
  return header + "\n";
}

std::string csvRow(const std::vector<std::string>& fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? "," : "") + fields[i];
  return row + "\n";
}

std::string stabilizationText(const Stabilization& stabilization) {
  return stabilization.kind == Stabilization::Kind::None ? "no stabilization" : stabilization.describe();
}

/// How each integrator is drawn: fixed-step dashed with open symbols, adaptive solid and filled.
struct LineStyle {
  Integrator integrator;
  const char* colour;
  int point_type;
};

const std::vector<LineStyle> kStyles = {
    {Integrator::ExplicitEuler, "#d62728", 4},  {Integrator::SemiImplicitEuler, "#ff7f0e", 6},
    {Integrator::Rk4, "#2ca02c", 8},            {Integrator::CvodeBdf, "#1f77b4", 5},
    {Integrator::CvodeAdams, "#9467bd", 7},     {Integrator::IdaIndex1, "#17becf", 9},
    {Integrator::IdaGgl, "#000000", 13},        {Integrator::Rattle, "#8c564b", 10},
    {Integrator::GeneralizedAlpha, "#e377c2", 11}, {Integrator::Hht, "#7f7f7f", 12}};

const LineStyle& styleOf(Integrator integrator) {
  return *std::find_if(kStyles.begin(), kStyles.end(), [&](const LineStyle& s) { return s.integrator == integrator; });
}

/// "rk4 (dt 0.02 ... 0.00125 s)": the legend names the sweep a line walks through.
std::string legendTitle(const CompareRun& run, Integrator integrator) {
  std::vector<double> values;
  for (const WorkPrecisionResult& r : run.report.results) {
    if (r.setting.integrator == integrator) values.push_back(isAdaptive(integrator) ? r.setting.rtol : r.setting.dt);
  }
  const std::string unit = isAdaptive(integrator) ? "" : " s";
  std::string name(toString(integrator));
  // A ρ∞ or α off the defaults is part of what the line shows (compare.json records the same).
  const nlohmann::json settings = generalizedAlphaSettings(optionsOf(run).generalized_alpha, {integrator});
  if (settings.contains("rho_inf")) name += ", rho_inf " + pythonRepr(settings["rho_inf"].get<double>());
  if (settings.contains("hht_alpha")) name += ", alpha " + pythonRepr(settings["hht_alpha"].get<double>());
  name += isAdaptive(integrator) ? " (rtol " : " (dt ";
  if (values.size() == 1) return name + pythonRepr(values.front()) + unit + ")";
  return name + pythonRepr(values.front()) + " ... " + pythonRepr(values.back()) + unit + ")";
}

}  // namespace

std::string formatTable(const CompareRun& run) {
  const WorkPrecisionReport& report = run.report;
  const WorkPrecisionOptions& options = optionsOf(run);
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line,
                "reference: ida_ggl rtol %s atol %.3g: %ld steps, %ld residual evaluations, %.1f ms\n",
                pythonRepr(options.reference_rtol).c_str(), options.atol_ratio * options.reference_rtol,
                report.reference_summary.steps, report.reference_summary.rhs_evaluations,
                1e3 * report.reference_summary.wall_seconds);
  text += line;
  std::snprintf(line, sizeof line,
                "reference cross-check: |ida_ggl - Richardson(rk4 dt %s, %s)|_inf at T = %s; "
                "Richardson's estimate of rk4(dt %s)'s own error %s\n",
                pythonRepr(options.reference_rk4_dt).c_str(), pythonRepr(options.reference_rk4_dt / 2).c_str(),
                scientific(report.reference_cross_check, 0).c_str(), pythonRepr(options.reference_rk4_dt / 2).c_str(),
                scientific(report.richardson_estimate, 0).c_str());
  text += line;
  std::snprintf(line, sizeof line, "%-14s %-13s %11s %11s %12s %8s %10s %10s  %s\n", "integrator", "setting",
                "error at T", "max|phi|", "energy drift", "steps", "rhs evals", "wall ms", "status");
  text += line;
  for (const WorkPrecisionResult& r : report.results) {
    std::snprintf(line, sizeof line, "%-14s %-13s %s %s %s %8ld %10ld %10.3f  %s", std::string(toString(r.setting.integrator)).c_str(),
                  settingText(r.setting).c_str(), scientific(r.error, 11).c_str(), scientific(r.max_phi_inf, 11).c_str(),
                  scientific(r.energy_drift, 12).c_str(), r.summary.steps, r.summary.rhs_evaluations,
                  1e3 * r.wall_seconds, statusText(r.summary).c_str());
    text += line;
    if (!r.summary.ok()) text += ": " + r.summary.message;
    if (!run.setup->event.empty()) text += "  event time error " + scientific(r.event_time_error, 0);
    text += "\n";
  }
  return text;
}

std::vector<std::string> compareFiles() {
  return {"compare.csv", "compare.json", "work_precision.gp", "work_precision.png",
          "timing.csv",  "timing.json",  "timing.gp",         "timing.png"};
}

void writeCsv(RunDirectory& dir, const CompareRun& run) {
  std::string csv = csvHeader(kCsvColumns);
  for (const WorkPrecisionResult& r : run.report.results) {
    const bool adaptive = isAdaptive(r.setting.integrator);
    const Summary& s = r.summary;
    const std::vector<std::string> fields = {
        std::string(toString(r.setting.integrator)),
        adaptive ? "adaptive" : "fixed_step",
        adaptive ? "" : csvNumber(r.setting.dt),
        adaptive ? csvNumber(r.setting.rtol) : "",
        adaptive ? csvNumber(atolOf(run, r.setting)) : "",
        csvNumber(r.error),
        csvNumber(r.max_phi_inf),
        csvNumber(s.max_phi_dot_inf),
        csvNumber(s.final_phi_inf),
        csvNumber(r.energy_drift),
        std::to_string(s.steps),
        std::to_string(s.rhs_evaluations),
        std::to_string(s.kkt_solves),
        std::to_string(s.jacobian_evaluations),
        std::to_string(s.linear_solver_setups),
        std::to_string(s.error_test_failures),
        std::to_string(s.convergence_failures),
        statusText(s),
        csvQuoted(s.notes),
        csvQuoted(s.message)};
    csv += csvRow(fields);
  }
  dir.write("compare.csv", csv);
}

void writeTiming(RunDirectory& dir, const CompareRun& run) {
  const WorkPrecisionOptions& options = optionsOf(run);
  std::string csv = csvHeader(kTimingColumns);
  nlohmann::json rows = nlohmann::json::array();
  for (const WorkPrecisionResult& r : run.report.results) {
    const bool adaptive = isAdaptive(r.setting.integrator);
    const std::string integrator(toString(r.setting.integrator));
    csv += csvRow({integrator, adaptive ? "adaptive" : "fixed_step", adaptive ? "" : csvNumber(r.setting.dt),
                   adaptive ? csvNumber(r.setting.rtol) : "", csvNumber(r.error),
                   std::to_string(r.summary.rhs_evaluations), csvNumber(r.wall_seconds), statusText(r.summary)});
    rows.push_back({{"integrator", integrator},
                    {"dt", adaptive ? nlohmann::json(nullptr) : nlohmann::json(r.setting.dt)},
                    {"rtol", adaptive ? nlohmann::json(r.setting.rtol) : nlohmann::json(nullptr)},
                    {"wall_seconds", r.wall_seconds}});
  }
  dir.write("timing.csv", csv);
  nlohmann::json doc;
  doc["timing_repeats"] = options.timing_repeats;
  // Runs timed side by side share the cores: the wall times are read knowing how many ran at once.
  doc["timing_threads"] = sweepThreadCount(run.report.results.size(), options.parallel);
  doc["reference_wall_seconds"] = run.report.reference_summary.wall_seconds;
  doc["rows"] = rows;
  doc["note"] = "wall_seconds: median over timing_repeats runs on the machine that wrote this file; not "
                "reproducible, unlike compare.csv and compare.json";
  writeJson(dir, "timing.json", doc);
}

void writeCompareJson(RunDirectory& dir, const CompareRun& run) {
  const CompareSetup& setup = *run.setup;
  const WorkPrecisionOptions& options = setup.options;
  const WorkPrecisionReport& report = run.report;
  nlohmann::json doc;
  nlohmann::json model;
  model["name"] = setup.model;
  model["description"] = run.model_title;
  if (setup.model == "chain") {
    model["links"] = setup.links;
    model["tilt"] = setup.tilt;
  }
  doc["model"] = model;
  if (!run.setup->event.empty()) doc["event"] = run.setup->event;
  doc["horizon"] = options.horizon;
  doc["output_dt"] = options.output_dt;
  doc["atol_ratio"] = options.atol_ratio;
  doc["form"] = std::string(toString(options.kkt.form));
  doc["stabilization"] = {{"kind", options.stabilization.kind == Stabilization::Kind::None ? "none" : "baumgarte"},
                          {"alpha", options.stabilization.alpha},
                          {"beta", options.stabilization.beta}};
  // ρ∞ and α only when off the library's defaults: a run at the defaults writes the file it always did.
  if (const nlohmann::json settings = generalizedAlphaSettings(options.generalized_alpha, setup.integrators);
      !settings.is_null()) {
    doc["generalized_alpha"] = settings;
  }
  doc["timing_repeats"] = options.timing_repeats;
  doc["timing_note"] = "measured times are in timing.json and timing.csv; every number here is reproducible";

  nlohmann::json reference;
  reference["integrator"] = "ida_ggl";
  reference["rtol"] = options.reference_rtol;
  reference["atol"] = options.atol_ratio * options.reference_rtol;
  reference["steps"] = report.reference_summary.steps;
  reference["residual_evaluations"] = report.reference_summary.rhs_evaluations;
  reference["max_phi_inf"] = exactNumberOrNull(report.reference_summary.max_phi_inf);
  reference["state_at_T"] = std::vector<double>(report.reference.data(), report.reference.data() + report.reference.size());
  reference["rk4_dts"] = {options.reference_rk4_dt, options.reference_rk4_dt / 2};
  reference["cross_check"] = exactNumberOrNull(report.reference_cross_check);
  reference["richardson_estimate"] = exactNumberOrNull(report.richardson_estimate);
  if (!report.reference_summary.notes.empty()) reference["notes"] = report.reference_summary.notes;
  doc["reference"] = reference;

  nlohmann::json rows = nlohmann::json::array();
  for (const WorkPrecisionResult& r : report.results) {
    const bool adaptive = isAdaptive(r.setting.integrator);
    const Summary& s = r.summary;
    nlohmann::json row;
    row["integrator"] = std::string(toString(r.setting.integrator));
    row["kind"] = adaptive ? "adaptive" : "fixed_step";
    row["dt"] = adaptive ? nlohmann::json(nullptr) : nlohmann::json(r.setting.dt);
    row["rtol"] = adaptive ? nlohmann::json(r.setting.rtol) : nlohmann::json(nullptr);
    row["atol"] = adaptive ? nlohmann::json(atolOf(run, r.setting)) : nlohmann::json(nullptr);
    row["error_at_T"] = exactNumberOrNull(r.error);
    row["max_phi_inf"] = exactNumberOrNull(r.max_phi_inf);
    row["max_phi_dot_inf"] = exactNumberOrNull(s.max_phi_dot_inf);
    row["final_phi_inf"] = exactNumberOrNull(s.final_phi_inf);
    row["energy_drift"] = exactNumberOrNull(r.energy_drift);
    row["steps"] = s.steps;
    row["rhs_evaluations"] = s.rhs_evaluations;
    row["kkt_solves"] = s.kkt_solves;
    row["jacobian_evaluations"] = s.jacobian_evaluations;
    row["linear_solver_setups"] = s.linear_solver_setups;
    row["error_test_failures"] = s.error_test_failures;
    row["convergence_failures"] = s.convergence_failures;
    row["status"] = statusText(s);
    if (!s.ok()) row["message"] = s.message;
    if (!s.notes.empty()) row["notes"] = s.notes;
    // New keys only when an event was asked for: without --event the file is as before.
    if (!run.setup->event.empty()) {
      row["event_time_error"] = exactNumberOrNull(r.event_time_error);
      row["events_fired"] = s.events.size();
    }
    rows.push_back(row);
  }
  doc["rows"] = rows;
  writeJson(dir, "compare.json", doc);
}

std::vector<PlotOutcome> writePlots(RunDirectory& dir, const CompareRun& run) {
  const WorkPrecisionOptions& options = optionsOf(run);
  // A line needs a point on the log axis; gnuplot refuses a plot command whose every curve is
  // empty, and an integrator whose runs all failed has nothing to draw.
  std::vector<Integrator> drawn;
  for (Integrator integrator : run.setup->integrators) {
    for (const WorkPrecisionResult& r : run.report.results) {
      if (r.setting.integrator == integrator && std::isfinite(r.error) && r.error > 0.0) {
        drawn.push_back(integrator);
        break;
      }
    }
  }
  if (drawn.empty()) {
    // The run directory removed an earlier run's diagrams before this run began.
    return {{PlotStatus::NothingToDraw, "no run has a finite error: nothing to draw"}};
  }

  auto lineStyle = [&](Integrator integrator) {
    const LineStyle& style = styleOf(integrator);
    return std::string(" with linespoints lw 2 ps 1.4 dt ") + (isAdaptive(integrator) ? "1" : "2") + " pt " +
           std::to_string(style.point_type) + " lc rgb '" + style.colour + "'";
  };
  // `x_expression` empty: the legend panel, whose curves are empty and only carry titles.
  auto plotCommand = [&](const std::string& csv, const std::string& error_column, const std::string& x_expression) {
    std::string plot = "plot ";
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      const std::string name = std::string(toString(drawn[i]));
      plot += i ? ", \\\n     " : "";
      if (x_expression.empty()) {
        plot += "NaN" + lineStyle(drawn[i]) + " title " + gnuplotQuote(legendTitle(run, drawn[i])) + " noenhanced";
      } else {
        plot += "'" + csv + "' skip 1 using (" + x_expression + "):(strcol(1) eq '" + name + "' && " + error_column +
                " > 0 ? " + error_column + " : 1/0)" + lineStyle(drawn[i]) + " notitle";
      }
    }
    return plot + "\n";
  };
  // The reference's own uncertainty: errors below it are not resolved. The y range covers whole
  // decades from it to the largest error, so the line is always on the plot.
  double y_low = std::numeric_limits<double>::infinity(), y_high = 0.0;
  for (const WorkPrecisionResult& r : run.report.results) {
    if (std::isfinite(r.error) && r.error > 0.0) {
      y_low = std::min(y_low, r.error);
      y_high = std::max(y_high, r.error);
    }
  }
  std::string floor;
  const double cross_check = run.report.reference_cross_check;
  if (std::isfinite(cross_check) && cross_check > 0.0) {
    y_low = std::min(y_low, cross_check);
    const std::string y = shortest(cross_check);
    floor = "set arrow 1 from graph 0, first " + y + " to graph 1, first " + y +
            " nohead dt 3 lw 1.5 lc rgb '#777777' front\n"
            "set label 1 'reference cross-check |ida_ggl - Richardson(rk4)|' at graph 0.98, first " + y +
            " right offset 0,0.7 font ',10' tc rgb '#555555' noenhanced front\n";
  }
  const double decade_low = std::pow(10.0, std::floor(std::log10(y_low / 3.0)));  // off the bottom border
  const double decade_high = std::max(std::pow(10.0, std::ceil(std::log10(y_high))), 10.0 * decade_low);
  const std::string stabilization = stabilizationText(options.stabilization);
  const std::string title = run.model_title + ", T = " + pythonRepr(options.horizon) + " s, " + stabilization + ", " +
                            std::string(toString(options.kkt.form)) + " KKT form";
  // One panel and, below it, a legend panel of its own: inside the panel it would cover points.
  auto script = [&](const std::string& png, const std::string& csv, const std::vector<std::string>& columns,
                    const std::string& panel_title, const std::string& x_label, const std::string& x_expression) {
    const std::string error_column = "$" + columnNumber(columns, "error_at_T");
    return "if (!exists(\"outfile\")) outfile = '" + png + "'\n"
           "set terminal pngcairo size 1100,860 enhanced font 'DejaVu Sans,12'\n"
           "set output outfile\n"
           "set datafile separator ','\n"
           "set multiplot title " + gnuplotQuote(panel_title + ": " + title) + " font ',13' noenhanced\n"
           "set logscale xy\n"
           "set format x '10^{%L}'\nset format y '10^{%L}'\n"
           "set mxtics 10\nset mytics 10\n"
           "set grid xtics ytics mxtics mytics lc rgb '#dcdcdc', lc rgb '#f0f0f0'\n"
           "set yrange [" + shortest(decade_low) + ":" + shortest(decade_high) + "]\n"
           "set ylabel " + gnuplotQuote("error at T: max-norm of (q, dq/dt) - reference  [m, m/s]") + " noenhanced\n" +
           floor +
           "set tmargin at screen 0.9\nset bmargin at screen 0.3\n"
           "set lmargin at screen 0.1\nset rmargin at screen 0.97\n"
           "set xlabel " + gnuplotQuote(x_label) + " noenhanced\n" +
           plotCommand(csv, error_column, x_expression) +
           "unset title\nunset xlabel\nunset ylabel\nunset border\nunset tics\nunset grid\nunset logscale\n"
           "unset arrow\nunset label\nset xrange [0:1]\nset yrange [0:1]\n"
           "set tmargin at screen 0.17\nset bmargin at screen 0.01\nset lmargin at screen 0.03\nset rmargin at screen 0.97\n"
           "set key center center horizontal maxrows 4 box font ',11' samplen 4 width 1 spacing 1.3\n" +
           plotCommand(csv, error_column, "") +
           "unset multiplot\n";
  };
  std::vector<PlotOutcome> plots;
  plots.push_back(renderPlot(
      dir, "work_precision.gp", "work_precision.png",
      script("work_precision.png", "compare.csv", kCsvColumns, "error against right-hand-side evaluations",
             "right-hand-side evaluations per run [count]: KKT solves (fixed-step), f (CVODE), F (IDA)",
             "$" + columnNumber(kCsvColumns, "rhs_evaluations"))));
  if (plots.back().status == PlotStatus::Interrupted) return plots;
  plots.push_back(renderPlot(dir, "timing.gp", "timing.png",
                             script("timing.png", "timing.csv", kTimingColumns, "error against wall time",
                                    "wall time per run [ms] (median of " + std::to_string(options.timing_repeats) +
                                        "; not reproducible)",
                                    "$" + columnNumber(kTimingColumns, "wall_seconds") + " * 1000")));
  return plots;
}

}  // namespace kktdae::apps
