#include "errdyn/errdyn_trajectory.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "common/gnuplot.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "common/output_files.hpp"

namespace kktdae::apps {
namespace {

std::string fixed(double value, const char* format = "%.4f") {
  if (!std::isfinite(value)) return "-";
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

nlohmann::json limitJson(const TrajectoryLimit& limit) {
  return {{"limit", metricNumber(limit.found ? limit.limit : NAN)},
          {"found", limit.found},
          {"message", limit.message},
          {"coupling", metricNumber(limit.coupling_at_limit)},
          {"evaluations", limit.evaluations}};
}

}  // namespace

nlohmann::json writeLimitComparison(RunDirectory& dir, const std::vector<LimitComparisonRow>& rows,
                                    std::vector<std::string>& lines) {
  std::string csv =
      "model,integrator,dt,closed_form,predicted,frozen_jacobian,no_gamma,decoupled,measured,coupling,predicted_runaway\n";
  nlohmann::json table = nlohmann::json::array();
  char line[256];
  std::snprintf(line, sizeof line, "%-7s %-14s %7s %8s %9s %8s %8s %9s %9s %8s %8s", "model", "integrator", "dt",
                "closed", "predicted", "frozenJ", "no_gamma", "decoupled", "measured", "coupling", "runaway");
  lines.push_back(line);
  auto value = [](const TrajectoryLimit& l) { return l.found ? l.limit : NAN; };
  for (const LimitComparisonRow& r : rows) {
    const std::string integrator(toString(r.integrator));
    const double measured = r.measured.found ? r.measured.limit : NAN;
    const double runaway = r.runaway.found ? r.runaway.limit : NAN;
    csv += r.model + "," + integrator + "," + shortest(r.dt) + "," + shortest(r.closed_form) + "," +
           shortest(value(r.predicted)) + "," + shortest(value(r.frozen_jacobian)) + "," +
           shortest(value(r.no_gamma)) + "," + shortest(value(r.decoupled)) + "," + shortest(measured) + "," +
           shortest(r.predicted.coupling_at_limit) + "," + shortest(runaway) + "\n";
    std::snprintf(line, sizeof line, "%-7s %-14s %7g %8s %9s %8s %8s %9s %9s %8s %8s", r.model.c_str(),
                  integrator.c_str(), r.dt, fixed(r.closed_form).c_str(), fixed(value(r.predicted)).c_str(),
                  fixed(value(r.frozen_jacobian)).c_str(), fixed(value(r.no_gamma)).c_str(),
                  fixed(value(r.decoupled)).c_str(), fixed(measured).c_str(),
                  fixed(r.predicted.coupling_at_limit, "%.2e").c_str(), fixed(runaway).c_str());
    lines.push_back(line);
    if (!r.predicted.found) lines.push_back("    predicted: " + r.predicted.message);
    if (!r.measured.found) lines.push_back("    measured: " + r.measured.message);
    if (!r.runaway.found) lines.push_back("    runaway: " + r.runaway.message);
    table.push_back({{"model", r.model}, {"integrator", integrator}, {"dt", r.dt}, {"closed_form", r.closed_form},
                     {"predicted", limitJson(r.predicted)}, {"frozen_jacobian", limitJson(r.frozen_jacobian)},
                     {"no_gamma", limitJson(r.no_gamma)}, {"decoupled", limitJson(r.decoupled)},
                     {"measured", {{"limit", metricNumber(measured)}, {"found", r.measured.found},
                                   {"message", r.measured.message}, {"runs", r.measured.runs}}},
                     {"predicted_runaway", {{"limit", metricNumber(runaway)}, {"found", r.runaway.found},
                                            {"message", r.runaway.message},
                                            {"verdict_at_upper", std::string(toString(r.runaway.verdict_at_upper))},
                                            {"probes", r.runaway.probes}}}});
  }
  dir.write("limits.csv", csv);
  lines.push_back("table: " + dir.file("limits.csv").string());

  // One plot per integrator: limit against dt, a colour per model, measured solid, predicted
  // (normal block) dashed, predicted (runaway) dotted.
  std::set<std::string> integrators, models;
  for (const LimitComparisonRow& r : rows) {
    integrators.insert(std::string(toString(r.integrator)));
    models.insert(r.model);
  }
  for (const std::string& integrator : integrators) {
    const std::string stem = "limits_" + integrator;
    double closed = 0.0;
    for (const LimitComparisonRow& r : rows) {
      if (toString(r.integrator) == integrator) closed = r.closed_form;
    }
    std::string script =
        "if (!exists(\"outfile\")) outfile = '" + stem + ".png'\n"
        "set terminal pngcairo size 900,600 enhanced font 'DejaVu Sans,11'\nset output outfile\n"
        "set datafile separator ','\nset logscale x\nset grid\nset key bottom left box opaque\nset xrange [0.0008:0.0125]\n"
        "set xlabel 'time step dt [s]'\nset ylabel 'stability limit of dt{/Symbol w} ({/Symbol z} = 1)'\n"
        "set title " + gnuplotQuote("Baumgarte limit under " + integrator + ": predicted (dashed: normal block, dotted: runaway) vs measured (solid)") +
        " noenhanced\nclosed = " + shortest(closed) + "\nplot closed with lines lw 2 lc rgb 'black' title 'closed form'";
    int colour = 1;
    for (const std::string& model : models) {
      const std::string select = "(strcol(1) eq '" + model + "' && strcol(2) eq '" + integrator + "' ? $";
      script += ", \\\n  'limits.csv' skip 1 using 3:" + select + "9 : 1/0) with linespoints lw 2 pt 7 lc " +
                std::to_string(colour) + " title '" + model + " measured'";
      script += ", \\\n  'limits.csv' skip 1 using 3:" + select + "5 : 1/0) with linespoints lw 2 dt 2 pt 6 lc " +
                std::to_string(colour) + " title '" + model + " predicted'";
      script += ", \\\n  'limits.csv' skip 1 using 3:" + select + "11 : 1/0) with linespoints lw 2 dt 3 pt 4 lc " +
                std::to_string(colour) + " title '" + model + " runaway'";
      ++colour;
    }
    script += "\n";
    const PlotOutcome plot = renderPlot(dir, stem + ".gp", stem + ".png", script);
    lines.push_back(plot.line());
  }
  return table;
}

nlohmann::json writeSoftDecayTable(RunDirectory& dir, const std::vector<SoftDecayRow>& rows,
                                   std::vector<std::string>& lines) {
  std::string csv =
      "case,timeconst,dampratio,dmin,dmax,requested_decay,predicted_decay,measured_decay,decay_deviation,"
      "requested_damping,predicted_damping,measured_damping,predicted_offset,measured_offset\n";
  nlohmann::json table = nlohmann::json::array();
  char line[256];
  std::snprintf(line, sizeof line, "%-26s %9s %9s %9s %8s %7s %7s %7s %11s", "case", "asked", "predicted",
                "measured", "dev", "zeta", "z_pred", "z_meas", "offset");
  lines.push_back(line);
  for (const SoftDecayRow& row : rows) {
    const SoftDecayCheck& c = row.check;
    const double deviation = c.measured_decay_rate / c.predicted.decay_rate - 1.0;
    csv += row.name + "," + shortest(row.soft.timeconst) + "," + shortest(row.soft.dampratio) + "," +
           shortest(row.soft.dmin) + "," + shortest(row.soft.dmax) + "," + shortest(c.predicted.requested_decay_rate) +
           "," + shortest(c.predicted.decay_rate) + "," + shortest(c.measured_decay_rate) + "," + shortest(deviation) +
           "," + shortest(c.predicted.requested_damping_ratio) + "," + shortest(c.predicted.damping_ratio) + "," +
           shortest(c.measured_damping_ratio) + "," + shortest(c.predicted.offset[0]) + "," +
           shortest(c.measured_offset) + "\n";
    std::snprintf(line, sizeof line, "%-26s %9.3f %9.3f %9.3f %+7.2f%% %7.3f %7.3f %7.3f %11.3e", row.name.c_str(),
                  c.predicted.requested_decay_rate, c.predicted.decay_rate, c.measured_decay_rate, 100.0 * deviation,
                  c.predicted.requested_damping_ratio, c.predicted.damping_ratio, c.measured_damping_ratio,
                  c.predicted.offset[0]);
    lines.push_back(line);
    table.push_back({{"case", row.name}, {"timeconst", row.soft.timeconst}, {"dampratio", row.soft.dampratio},
                     {"dmin", row.soft.dmin}, {"dmax", row.soft.dmax},
                     {"requested_decay_rate", c.predicted.requested_decay_rate},
                     {"predicted_decay_rate", metricNumber(c.predicted.decay_rate)},
                     {"measured_decay_rate", metricNumber(c.measured_decay_rate)},
                     {"predicted_damping_ratio", metricNumber(c.predicted.damping_ratio)},
                     {"measured_damping_ratio", metricNumber(c.measured_damping_ratio)},
                     {"predicted_offset", metricNumber(c.predicted.offset[0])},
                     {"measured_offset", metricNumber(c.measured_offset)},
                     {"status", c.summary.ok() ? "ok" : c.summary.message}});
  }
  dir.write("soft_decay.csv", csv);
  lines.push_back("table: " + dir.file("soft_decay.csv").string());
  return table;
}

}  // namespace kktdae::apps
