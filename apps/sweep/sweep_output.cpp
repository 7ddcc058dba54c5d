#include "sweep/sweep_output.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "common/json_output.hpp"
#include "common/number_format.hpp"

namespace kktdae::apps {
namespace {

/// One CSV field: integers as they are, doubles as shortest round-trip text, strings quoted when
/// they hold a comma, a quote or a line break, null as an empty field.
std::string csvField(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_number_float()) return shortest(value.get<double>());
  if (value.is_number()) return value.dump();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  return csvQuoted(text);
}

/// Rows by their value in `column`; a row without one (a stability run the library refused has
/// no behaviour) is not counted.
std::map<std::string, long> countBy(const std::vector<SweepRow>& rows, const char* column) {
  std::map<std::string, long> counts;
  for (const SweepRow& row : rows) {
    const nlohmann::json& value = row.results.at(column);
    if (value.is_string()) ++counts[value.get<std::string>()];
  }
  return counts;
}

/// What the summary table counts a row under: its behaviour (stability) or status (run), or its
/// status when it has no behaviour.
std::string outcomeOf(const SweepPlan& plan, const SweepRow& row) {
  const nlohmann::json& value = row.results.at(plan.measure == SweepMeasure::Stability ? "behaviour" : "status");
  return value.is_string() ? value.get<std::string>() : row.results.at("status").get<std::string>();
}

}  // namespace

std::string sweepCsv(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
  const std::vector<std::string> results = resultColumns(plan);
  std::string csv = "index";
  for (const std::string& name : plan.varied) csv += "," + name;
  for (const std::string& name : results) csv += "," + name;
  csv += "\n";
  for (const SweepRow& row : rows) {
    csv += std::to_string(row.index);
    const nlohmann::json& params = plan.runs.at(row.index);
    for (const std::string& name : plan.varied) csv += "," + csvField(params.contains(name) ? params[name] : nlohmann::json());
    for (const std::string& name : results) csv += "," + csvField(row.results.at(name));
    csv += "\n";
  }
  return csv;
}

nlohmann::json sweepJson(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
  nlohmann::json document;
  document["name"] = plan.name;
  document["model"] = plan.model;
  document["measure"] = plan.measure == SweepMeasure::Run ? "run" : "stability";
  document["varied"] = plan.varied;
  document["count"] = rows.size();
  if (plan.reference) document["reference"] = *plan.reference;
  nlohmann::json runs = nlohmann::json::array();
  for (const SweepRow& row : rows) {
    nlohmann::json run = row.results;
    run["index"] = row.index;
    run["params"] = plan.runs.at(row.index);
    runs.push_back(std::move(run));
  }
  document["runs"] = std::move(runs);
  document["status_counts"] = countBy(rows, "status");
  if (plan.measure == SweepMeasure::Stability) document["behaviour_counts"] = countBy(rows, "behaviour");
  return document;
}

std::string summaryTable(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
  // Groups: each combination of the varied choices (the string-valued parameters), in the order
  // the runs first show them.
  std::vector<std::string> choice_names;
  if (!plan.runs.empty()) {
    for (const std::string& name : plan.varied) {
      if (plan.runs.front().contains(name) && plan.runs.front()[name].is_string()) choice_names.push_back(name);
    }
  }
  std::vector<std::string> groups, outcomes;
  std::map<std::string, std::map<std::string, long>> counts;
  for (const SweepRow& row : rows) {
    std::string group;
    for (const std::string& name : choice_names) {
      group += (group.empty() ? "" : " ") + plan.runs.at(row.index)[name].get<std::string>();
    }
    if (group.empty()) group = "all";
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    const std::string value = outcomeOf(plan, row);
    if (std::find(outcomes.begin(), outcomes.end(), value) == outcomes.end()) outcomes.push_back(value);
    ++counts[group][value];
  }
  std::sort(outcomes.begin(), outcomes.end());
  std::string header_label;
  for (const std::string& name : choice_names) header_label += (header_label.empty() ? "" : " ") + name;
  if (header_label.empty()) header_label = "group";
  std::size_t width = header_label.size();
  for (const std::string& group : groups) width = std::max(width, group.size());

  char buffer[64];
  std::string table = header_label + std::string(width - header_label.size(), ' ');
  std::snprintf(buffer, sizeof buffer, " %6s", "runs");
  table += buffer;
  for (const std::string& value : outcomes) table += " " + std::string(std::max<std::size_t>(value.size(), 6) - value.size(), ' ') + value;
  table += "\n";
  for (const std::string& group : groups) {
    long total = 0;
    for (const auto& [value, n] : counts[group]) total += n;
    table += group + std::string(width - group.size(), ' ');
    std::snprintf(buffer, sizeof buffer, " %6ld", total);
    table += buffer;
    for (const std::string& value : outcomes) {
      const std::string n = std::to_string(counts[group][value]);
      table += " " + std::string(std::max<std::size_t>(value.size(), 6) - n.size(), ' ') + n;
    }
    table += "\n";
  }
  return table;
}

void writeSweepFiles(RunDirectory& dir, const SweepPlan& plan, const std::vector<SweepRow>& rows,
                     const std::vector<RunPlace>& places, int ranks, int threads, double wall_seconds) {
  std::string timing_csv = "index,rank,attempt,wall_seconds\n";
  double run_seconds = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    timing_csv += std::to_string(rows[i].index) + "," + std::to_string(places[i].rank) + "," +
                  std::to_string(places[i].attempt) + "," + shortest(rows[i].wall_seconds) + "\n";
    run_seconds += rows[i].wall_seconds;
  }
  nlohmann::json timing;
  timing["ranks"] = ranks;
  timing["threads_per_rank"] = threads;
  timing["wall_seconds"] = wall_seconds;
  timing["run_seconds_sum"] = run_seconds;
  timing["runs"] = rows.size();
  dir.write("sweep.csv", sweepCsv(plan, rows));
  writeJson(dir, "sweep.json", sweepJson(plan, rows));
  dir.write("timing.csv", timing_csv);
  writeJson(dir, "timing.json", timing);
}

}  // namespace kktdae::apps
