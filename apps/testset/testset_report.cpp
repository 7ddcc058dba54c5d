#include "testset/testset_report.hpp"

#include <cmath>
#include <cstdio>

#include "common/generalized_alpha_flags.hpp"
#include "common/gnuplot.hpp"
#include "common/json_output.hpp"
#include "common/number_format.hpp"
#include "common/output_files.hpp"

namespace kktdae::apps {
namespace {

nlohmann::json vectorJson(const Vector& x) {
  nlohmann::json array = nlohmann::json::array();
  for (Eigen::Index i = 0; i < x.size(); ++i) array.push_back(exactNumberOrNull(x[i]));
  return array;
}

/// A CSV field for a number that may not exist: empty, never "nan" (the status column says why).
std::string csvNumber(bool present, double value) { return present && std::isfinite(value) ? shortest(value) : ""; }

std::string statusText(const TestSetLadderRow& row) {
  if (!row.refusal.empty()) return "not_applicable";
  if (row.result.reached_end) return "ok";
  return row.result.summary.ok() ? "incomplete" : std::string(toString(row.result.summary.status));
}

/// What Summary::rhs_evaluations counts for this integrator, in words.
std::string evaluationKind(Integrator integrator) {
  switch (integrator) {
    case Integrator::CvodeBdf:
    case Integrator::CvodeAdams: return "f(t, y) of the index-1 ODE";
    case Integrator::IdaIndex1:
    case Integrator::IdaGgl: return "DAE residual F(t, y, y')";
    default: return "KKT-solve stages";
  }
}

/// Four digits are enough to tell the rungs apart on screen (t_end/N is rarely short in decimal);
/// the files keep every digit.
std::string settingText(const TestSetRunResult& r) {
  char text[48];
  std::snprintf(text, sizeof text, "%s %.4g", isAdaptive(r.integrator) ? "tol" : "dt", isAdaptive(r.integrator) ? r.rtol : r.dt);
  return text;
}

std::string scdText(const TestSetRunResult& r, double value) {
  if (!r.reached_end || !std::isfinite(value)) return "     -";
  char text[32];
  std::snprintf(text, sizeof text, "%6.2f", value);
  return text;
}

nlohmann::json countersJson(const Summary& s) {
  nlohmann::json j;
  j["steps"] = s.steps;
  j["rhs_evaluations"] = s.rhs_evaluations;
  j["rhs_evaluations_are"] = evaluationKind(s.integrator);
  j["kkt_solves"] = s.kkt_solves;
  j["jacobian_evaluations"] = s.jacobian_evaluations;
  j["linear_solver_setups"] = s.linear_solver_setups;
  j["error_test_failures"] = s.error_test_failures;
  j["newton_convergence_failures"] = s.convergence_failures;
  j["projections"] = s.projections;
  return j;
}

}  // namespace

std::string formatRunLine(const TestSetRunResult& r) {
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %-12s %-18s scd %s  mescd %s  steps %8ld  evaluations %9ld  jac %6ld",
                std::string(toString(r.integrator)).c_str(), settingText(r).c_str(),
                r.reached_end ? "ok" : std::string(toString(r.summary.status)).c_str(), scdText(r, r.scd).c_str(),
                scdText(r, r.mescd).c_str(), r.summary.steps, r.summary.rhs_evaluations, r.summary.jacobian_evaluations);
  return line;
}

void writeRunFiles(RunDirectory& out, const TestSetCase& problem, const TestSetRunOptions& options,
                   const TestSetRunResult& r) {
  const ReferenceSolution& ref = problem.reference;
  nlohmann::json m;
  m["problem"] = std::string(toString(problem.problem));
  m["title"] = problem.title;
  m["integrator"] = std::string(toString(r.integrator));
  m["formulation"] = r.formulation;
  m["kkt_form"] = std::string(toString(r.summary.form));
  const bool adaptive = isAdaptive(r.integrator);
  m["rtol"] = r.rtol;
  m["atol"] = r.atol;
  m["dt"] = adaptive ? nlohmann::json(nullptr) : nlohmann::json(r.dt);
  // ρ∞ or α only when off the library's defaults: a run at the defaults writes the file it always did.
  if (const nlohmann::json settings = generalizedAlphaSettings(options.generalized_alpha, {r.integrator});
      !settings.is_null()) {
    m["generalized_alpha"] = settings;
  }
  m["status"] = r.reached_end ? std::string("ok") : std::string(toString(r.summary.status));
  m["message"] = r.summary.message;
  m["notes"] = r.summary.notes;
  m["t_end"] = ref.t_end;
  m["t_final"] = r.summary.t_final;
  m["reached_end"] = r.reached_end;
  nlohmann::json end;
  end["q"] = vectorJson(r.q);
  end["v"] = vectorJson(r.v);
  end["lambda"] = vectorJson(r.lambda);
  end["lambda_test_set"] = vectorJson(r.lambda_source);
  m["end_state"] = end;
  nlohmann::json reference;
  reference["source"] = ref.source;
  reference["q"] = vectorJson(ref.q);
  reference["v"] = vectorJson(ref.v);
  reference["lambda"] = vectorJson(ref.lambda);
  reference["lambda_test_set"] = vectorJson(ref.lambda_to_source * ref.lambda);
  reference["lambda_sign_note"] = ref.lambda_to_source < 0.0
                                      ? "the Test Set writes M q'' = f - G^T lambda: its lambda is minus ours"
                                      : "the Test Set's lambda has our sign (M q'' + h = J^T lambda)";
  if (problem.scored) {
    // The scored quantity at the top level, as the problem's source publishes it (heavy_top: the
    // displacement); scd and mescd are on it.
    reference[problem.scored_name] = vectorJson(problem.scored_reference);
    m[problem.scored_name] = r.reached_end ? vectorJson(r.scored) : nlohmann::json(nullptr);
    m["scored"] = problem.scored_name;
  }
  m["reference"] = reference;
  m["scored_components"] = problem.scored ? static_cast<int>(problem.scored_reference.size()) : ref.scored_components;
  m["scd"] = r.reached_end ? exactNumberOrNull(r.scd) : nlohmann::json(nullptr);
  m["mescd"] = r.reached_end ? exactNumberOrNull(r.mescd) : nlohmann::json(nullptr);
  m["mescd_floor"] = r.atol / r.rtol;
  m["scd_velocity"] = r.reached_end ? exactNumberOrNull(r.scd_velocity) : nlohmann::json(nullptr);
  m["counters"] = countersJson(r.summary);
  m["max_phi_inf"] = exactNumberOrNull(r.summary.max_phi_inf);
  m["final_phi_inf"] = exactNumberOrNull(r.summary.final_phi_inf);
  writeJson(out, "metrics.json", m);

  nlohmann::json timing;
  timing["wall_seconds"] = r.summary.wall_seconds;
  writeJson(out, "timing.json", timing);
}

std::string formatLadderTable(const std::vector<TestSetLadderRow>& rows) {
  std::string table = "integrator     setting      status            scd    mescd   steps     evaluations  jac\n";
  for (const TestSetLadderRow& row : rows) {
    const TestSetRunResult& r = row.result;
    char line[512];
    std::snprintf(line, sizeof line, "%-14s %-12s %-16s %s  %s  %8ld  %9ld  %6ld\n",
                  std::string(toString(r.integrator)).c_str(), settingText(r).c_str(), statusText(row).c_str(),
                  scdText(r, r.scd).c_str(), scdText(r, r.mescd).c_str(), r.summary.steps, r.summary.rhs_evaluations,
                  r.summary.jacobian_evaluations);
    table += line;
  }
  return table;
}

namespace {

const char* const kCsvHeader =
    "integrator,formulation,kind,rtol,atol,dt,status,scd,mescd,scd_velocity,steps,rhs_evaluations,"
    "evaluation_kind,kkt_solves,jacobian_evaluations,linear_solver_setups,error_test_failures,"
    "convergence_failures,max_phi_inf,final_phi_inf,message\n";

std::string csvRow(const TestSetLadderRow& row) {
  const TestSetRunResult& r = row.result;
  const bool adaptive = isAdaptive(r.integrator);
  const bool ran = row.refusal.empty();
  const Summary& s = r.summary;
  std::string line = std::string(toString(r.integrator)) + "," + csvQuoted(r.formulation) + "," +
                     (adaptive ? "adaptive" : "fixed") + "," + csvNumber(adaptive, r.rtol) + "," +
                     csvNumber(adaptive, r.atol) + "," + csvNumber(!adaptive, r.dt) + "," + statusText(row) + "," +
                     csvNumber(r.reached_end, r.scd) + "," + csvNumber(r.reached_end, r.mescd) + "," +
                     csvNumber(r.reached_end, r.scd_velocity) + ",";
  const long counters[] = {s.steps, s.rhs_evaluations};
  for (long c : counters) line += (ran ? std::to_string(c) : "") + ",";
  line += csvQuoted(evaluationKind(r.integrator)) + ",";
  const long more[] = {s.kkt_solves, s.jacobian_evaluations, s.linear_solver_setups, s.error_test_failures,
                       s.convergence_failures};
  for (long c : more) line += (ran ? std::to_string(c) : "") + ",";
  line += csvNumber(ran, s.max_phi_inf) + "," + csvNumber(ran, s.final_phi_inf) + ",";
  line += csvQuoted(ran ? (r.reached_end ? std::string() : s.message) : row.refusal) + "\n";
  return line;
}

/// Integrators in the order they first appear in the rows.
std::vector<Integrator> integratorsOf(const std::vector<TestSetLadderRow>& rows) {
  std::vector<Integrator> order;
  for (const TestSetLadderRow& row : rows) {
    bool seen = false;
    for (Integrator i : order) seen = seen || i == row.result.integrator;
    if (!seen) order.push_back(row.result.integrator);
  }
  return order;
}

bool plotted(const TestSetLadderRow& row) { return row.result.reached_end && std::isfinite(row.result.scd); }

struct Curve {
  Integrator integrator;
  std::string title;
};

/// One data block per integrator that has a point (gnuplot's `index`), columns given by `columns`.
template <typename Columns>
std::string dataBlocks(const std::vector<TestSetLadderRow>& rows, std::vector<Curve>& curves, Columns columns) {
  std::string data;
  for (Integrator integrator : integratorsOf(rows)) {
    std::string block;
    std::string formulation;
    for (const TestSetLadderRow& row : rows) {
      if (row.result.integrator != integrator || !plotted(row)) continue;
      block += columns(row) + "\n";
      formulation = row.result.formulation;
    }
    if (block.empty()) continue;
    if (!curves.empty()) data += "\n\n";
    data += "# " + std::string(toString(integrator)) + ": " + formulation + "\n" + block;
    curves.push_back({integrator, std::string(toString(integrator)) + " (" + formulation + ")"});
  }
  return data;
}

const char* const kColours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b2df8a"};

std::string curveCommands(const std::string& file, const std::vector<Curve>& curves, const std::string& using_spec,
                          bool adaptive_only) {
  std::string plot;
  for (std::size_t k = 0; k < curves.size(); ++k) {
    if (adaptive_only && !isAdaptive(curves[k].integrator)) continue;
    plot += (plot.empty() ? "plot " : ", \\\n     ") + std::string("'") + file + "' index " + std::to_string(k) +
            " using " + using_spec + " with linespoints lw 2 pt " + std::to_string(4 + 2 * static_cast<int>(k % 6)) +
            " ps 1.3 lc rgb '" + kColours[k % 10] + "' dt " + (isAdaptive(curves[k].integrator) ? "1" : "2") +
            " title " + gnuplotQuote(curves[k].title) + " noenhanced";
  }
  return plot;
}

std::string publishedCommand(bool with_counts, const std::vector<PublishedResult>& published) {
  std::string solvers;
  for (const PublishedResult& p : published) {
    if (solvers.find(p.solver) == std::string::npos) solvers += (solvers.empty() ? "" : ", ") + p.solver;
  }
  // published.dat: tolerance, scd, evaluations (-1: not published), solver.
  return std::string(", \\\n     'published.dat' using ") + (with_counts ? "($3 > 0 ? $3 : 1/0)" : "1") +
         ":2 with points pt 3 ps 2.5 lw 2 lc rgb 'black' title " + gnuplotQuote("Test Set, published (" + solvers + ")") + ", \\\n"
         "     'published.dat' using " + (with_counts ? "($3 > 0 ? $3 : 1/0)" : "1") +
         ":2:4 with labels offset 0,1.2 font ',9' notitle noenhanced";
}

}  // namespace

std::vector<PlotOutcome> writeLadderFiles(RunDirectory& out, const TestSetCase& problem,
                                          const TestSetLadderOptions& options,
                                          const std::vector<TestSetLadderRow>& rows) {
  std::string csv = kCsvHeader;
  for (const TestSetLadderRow& row : rows) csv += csvRow(row);
  out.write("ladder.csv", csv);

  std::string timing_csv = "integrator,rtol,dt,status,scd,wall_seconds\n";
  for (const TestSetLadderRow& row : rows) {
    const bool adaptive = isAdaptive(row.result.integrator);
    timing_csv += std::string(toString(row.result.integrator)) + "," + csvNumber(adaptive, row.result.rtol) + "," +
                  csvNumber(!adaptive, row.result.dt) + "," + statusText(row) + "," +
                  csvNumber(row.result.reached_end, row.result.scd) + "," +
                  csvNumber(row.refusal.empty(), row.wall_seconds) + "\n";
  }
  out.write("timing_ladder.csv", timing_csv);

  const ReferenceSolution& ref = problem.reference;
  nlohmann::json doc;
  doc["problem"] = std::string(toString(problem.problem));
  doc["title"] = problem.title;
  doc["reference_source"] = ref.source;
  doc["scored_components"] = ref.scored_components;
  doc["fixed_step_stabilization"] = options.fixed_stabilization.describe();
  doc["max_steps"] = options.max_steps;
  doc["kkt_form"] = std::string(toString(options.kkt.form));
  if (const nlohmann::json settings = generalizedAlphaSettings(options.generalized_alpha, integratorsOf(rows));
      !settings.is_null()) {
    doc["generalized_alpha"] = settings;  // as in metrics.json: only values off the defaults
  }
  doc["note"] = "scd = -log10 max_i |q_i - ref_i| / |ref_i| over the scored components at t_end; mescd uses the "
                "floor atol/rtol; empty fields: see status. Evaluations count our formulation's f, F or KKT "
                "stages, not the Test Set's 27-variable (andrews) or 10-variable (caraxis) first-order DAE.";
  nlohmann::json json_rows = nlohmann::json::array();
  for (const TestSetLadderRow& row : rows) {
    const TestSetRunResult& r = row.result;
    nlohmann::json j;
    j["integrator"] = std::string(toString(r.integrator));
    j["formulation"] = r.formulation;
    const bool adaptive = isAdaptive(r.integrator);
    j["rtol"] = adaptive ? nlohmann::json(r.rtol) : nlohmann::json(nullptr);
    j["atol"] = adaptive ? nlohmann::json(r.atol) : nlohmann::json(nullptr);
    j["dt"] = adaptive ? nlohmann::json(nullptr) : nlohmann::json(r.dt);
    j["status"] = statusText(row);
    j["message"] = row.refusal.empty() ? r.summary.message : row.refusal;
    j["scd"] = r.reached_end ? exactNumberOrNull(r.scd) : nlohmann::json(nullptr);
    j["mescd"] = r.reached_end ? exactNumberOrNull(r.mescd) : nlohmann::json(nullptr);
    j["scd_velocity"] = r.reached_end ? exactNumberOrNull(r.scd_velocity) : nlohmann::json(nullptr);
    j["counters"] = row.refusal.empty() ? countersJson(r.summary) : nlohmann::json(nullptr);
    j["end_q"] = r.reached_end ? vectorJson(r.q) : nlohmann::json(nullptr);
    json_rows.push_back(j);
  }
  doc["rows"] = json_rows;
  nlohmann::json published = nlohmann::json::array();
  std::string published_dat = "# tolerance scd evaluations solver\n";
  for (const PublishedResult& p : ref.published) {
    published.push_back({{"solver", p.solver}, {"tolerance", p.tolerance}, {"scd", p.scd}, {"steps", p.steps},
                         {"evaluations", p.evaluations}});
    published_dat += shortest(p.tolerance) + " " + shortest(p.scd) + " " + std::to_string(p.evaluations) + " " + p.solver + "\n";
  }
  doc["published"] = published;
  writeJson(out, "ladder.json", doc);

  nlohmann::json timing;
  nlohmann::json timing_rows = nlohmann::json::array();
  for (const TestSetLadderRow& row : rows) timing_rows.push_back(row.wall_seconds);
  timing["wall_seconds_per_row"] = timing_rows;
  timing["timing_repeats"] = options.timing_repeats;
  timing["note"] = "median wall time of each row of ladder.csv, in its order, on the machine that wrote this file";
  writeJson(out, "timing.json", timing);

  std::vector<Curve> curves, timing_curves;
  const std::string data = dataBlocks(rows, curves, [](const TestSetLadderRow& row) {
    const TestSetRunResult& r = row.result;
    return std::to_string(r.summary.rhs_evaluations) + " " + shortest(r.scd) + " " +
           shortest(isAdaptive(r.integrator) ? r.rtol : r.dt);
  });
  const std::string timing_data = dataBlocks(rows, timing_curves, [](const TestSetLadderRow& row) {
    return shortest(row.wall_seconds * 1000.0) + " " + shortest(row.result.scd);
  });
  if (curves.empty()) {
    return {PlotOutcome{PlotStatus::NothingToDraw, "no run reached t_end"}};
  }
  out.write("work_precision.dat", data);
  out.write("timing_work_precision.dat", timing_data);
  out.write("published.dat", published_dat);
  const bool has_published = !ref.published.empty();
  bool any_adaptive = false;
  for (const Curve& c : curves) any_adaptive = any_adaptive || isAdaptive(c.integrator);

  const std::string title = "work-precision: " + problem.title + "; fixed-step runs with " +
                            options.fixed_stabilization.describe();
  const std::string common =
      "set terminal pngcairo size 1700,900 enhanced font 'DejaVu Sans,12'\n"
      "set output outfile\n"
      "set grid xtics ytics mxtics lc rgb '#dcdcdc', lc rgb '#f0f0f0'\n"
      "set ylabel 'scd: significant correct digits of the end positions'\n"
      "set key outside below maxrows 5 font ',10' samplen 3\n";
  std::string script = "if (!exists(\"outfile\")) outfile = 'work_precision.png'\n" + common +
                       "set multiplot layout 1,2 title " + gnuplotQuote(title) + " font ',13' noenhanced\n"
                       "set logscale x\nset format x '10^{%L}'\n"
                       "set title 'scd against evaluations (f, residual F or KKT stages; the Test Set counts its own "
                       "first-order DAE)' font ',11' noenhanced\n"
                       "set xlabel 'evaluations per run'\n" +
                       curveCommands("work_precision.dat", curves, "1:2", false) +
                       (has_published ? publishedCommand(true, ref.published) : std::string()) + "\n";
  if (any_adaptive) {
    script += "set title 'scd against the tolerance asked (rtol = atol), adaptive runs' font ',11'\n"
              "set xlabel 'rtol = atol'\nset xrange [*:*] reverse\n" +
              curveCommands("work_precision.dat", curves, "3:2", true) +
              (has_published ? publishedCommand(false, ref.published) : std::string()) + "\n";
  }
  script += "unset multiplot\n";
  std::vector<PlotOutcome> plots = {renderPlot(out, "work_precision.gp", "work_precision.png", script)};

  const std::string timing_script =
      "if (!exists(\"outfile\")) outfile = 'timing_work_precision.png'\n" + common +
      "set title " + gnuplotQuote("scd against wall time: " + problem.title) + " noenhanced\n"
      "set logscale x\nset format x '10^{%L}'\n"
      "set xlabel 'wall time per run [ms] (median of " + std::to_string(options.timing_repeats) + ")'\n" +
      curveCommands("timing_work_precision.dat", timing_curves, "1:2", false) + "\n";
  plots.push_back(renderPlot(out, "timing_work_precision.gp", "timing_work_precision.png", timing_script));
  return plots;
}

}  // namespace kktdae::apps
