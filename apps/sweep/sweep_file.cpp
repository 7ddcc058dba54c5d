#include "sweep/sweep_file.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/number_format.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "sweep/strict_json.hpp"

namespace kktdae::apps {
namespace {

using Ordered = nlohmann::ordered_json;

enum class Kind { Int, Seed, Number, Choice };

/// One parameter a sweep file may set: its type, range, default and where it applies.
struct ParameterSpec {
  std::string name;
  Kind kind = Kind::Number;
  std::vector<std::string> models;  ///< empty: every model
  bool run_measure = true;          ///< allowed when "measure" is "run"
  bool stability_measure = true;    ///< allowed when "measure" is "stability"
  double min = -std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  std::vector<std::string> choices;  ///< Kind::Choice
  nlohmann::json fallback;           ///< the default; null: absent unless given
  /// May appear in "reference" (solver settings only: the reference runs the same model from the
  /// same start).
  bool solver = false;
};

std::vector<std::string> integratorNames() {
  std::vector<std::string> names;
  for (Integrator integrator : allIntegrators()) names.emplace_back(toString(integrator));
  return names;
}

const std::vector<ParameterSpec>& parameterSpecs() {
  const double inf = std::numeric_limits<double>::infinity();
  static const std::vector<ParameterSpec> specs = {
      {"integrator", Kind::Choice, {}, true, true, -inf, false, integratorNames(), "semi_implicit", true},
      {"form", Kind::Choice, {}, true, true, -inf, false, {"schur", "block"}, "schur", true},
      {"path", Kind::Choice, {}, true, false, -inf, false, {"auto", "dense", "sparse"}, "auto", true},
      {"stabilization", Kind::Choice, {}, true, false, -inf, false, {"none", "baumgarte", "projection", "soft"}, "none", true},
      {"dt", Kind::Number, {}, true, true, 0.0, true, {}, 0.005, true},
      {"steps", Kind::Int, {}, true, false, 0.0, false, {}, nullptr, true},
      {"horizon", Kind::Number, {}, true, true, 0.0, true, {}, nullptr, true},
      {"min_steps", Kind::Int, {}, false, true, 10.0, false, {}, 400, false},
      {"omega", Kind::Number, {}, true, true, 0.0, false, {}, 20.0, true},
      {"zeta", Kind::Number, {}, true, true, 0.0, false, {}, 1.0, true},
      {"rtol", Kind::Number, {}, true, false, 0.0, true, {}, 1e-6, true},
      {"atol", Kind::Number, {}, true, false, 0.0, true, {}, 1e-9, true},
      {"gravity", Kind::Number, {}, true, true, 0.0, false, {}, 9.81, false},
      {"links", Kind::Int, {"chain"}, true, true, 1.0, false, {}, 2, false},
      {"mass", Kind::Number, {"chain", "circle"}, true, true, 0.0, true, {}, 1.0, false},
      {"length", Kind::Number, {"chain"}, true, true, 0.0, true, {}, 1.0, false},
      {"tilt", Kind::Number, {"chain"}, true, true, -inf, false, {}, nullptr, false},
      {"seed", Kind::Seed, {"chain"}, true, true, 0.0, false, {}, nullptr, false},
      {"stretch", Kind::Number, {"chain"}, true, true, 0.0, false, {}, 0.0, false},
      {"radius", Kind::Number, {"circle"}, true, true, 0.0, true, {}, 1.0, false},
      {"x0", Kind::Number, {"circle"}, true, true, 0.0, true, {}, 1.0, false},
      {"crank_angle", Kind::Number, {"four_bar", "slider_crank"}, true, true, -inf, false, {}, 0.5, false},
      {"crank_rate", Kind::Number, {"four_bar", "slider_crank"}, true, true, -inf, false, {}, 0.0, false},
  };
  return specs;
}

const std::vector<std::string> kModels = {"chain", "circle", "four_bar", "slider_crank"};

[[noreturn]] void refuse(const std::string& source, const std::string& key, const std::string& why) {
  throw std::invalid_argument(source + ": " + key + ": " + why);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string shown(const Ordered& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

bool applies(const ParameterSpec& spec, const std::string& model, SweepMeasure measure) {
  const bool model_ok = spec.models.empty() || std::find(spec.models.begin(), spec.models.end(), model) != spec.models.end();
  return model_ok && (measure == SweepMeasure::Run ? spec.run_measure : spec.stability_measure);
}

/// The specs of the parameters `model` under `measure` accepts.
std::vector<const ParameterSpec*> parametersOf(const std::string& model, SweepMeasure measure) {
  std::vector<const ParameterSpec*> known;
  for (const ParameterSpec& spec : parameterSpecs()) {
    if (applies(spec, model, measure)) known.push_back(&spec);
  }
  return known;
}

class Parser {
 public:
  Parser(std::string source, std::string model, SweepMeasure measure)
      : source_(std::move(source)), model_(std::move(model)), measure_(measure), known_(parametersOf(model_, measure_)) {}

  const ParameterSpec& spec(const std::string& key, const std::string& name) const {
    for (const ParameterSpec* spec : known_) {
      if (spec->name == name) return *spec;
    }
    std::vector<std::string> names;
    for (const ParameterSpec* spec : known_) names.push_back(spec->name);
    refuse(source_, key, "not a parameter of model '" + model_ + "' with measure '" +
                             (measure_ == SweepMeasure::Run ? "run" : "stability") + "' (its parameters: " +
                             joined(names) + ")");
  }

  /// One value of parameter `spec`, checked and made canonical (numbers as doubles).
  nlohmann::json value(const std::string& key, const ParameterSpec& spec, const Ordered& raw) const {
    switch (spec.kind) {
      case Kind::Choice: {
        if (!raw.is_string()) refuse(source_, key, "expected a string (one of " + joined(spec.choices) + "), got " + shown(raw));
        const std::string text = raw.get<std::string>();
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
          refuse(source_, key, "'" + text + "' is not one of " + joined(spec.choices));
        }
        if (spec.name == "integrator" && measure_ == SweepMeasure::Stability && isAdaptive(parseIntegrator(text))) {
          refuse(source_, key, "'" + text + "' chooses its own steps: measure 'stability' maps fixed-step integrators");
        }
        return text;
      }
      case Kind::Seed: {
        if (!raw.is_number_unsigned() && !(raw.is_number_integer() && raw.get<long long>() >= 0)) {
          refuse(source_, key, "expected an integer from 0 to 18446744073709551615, got " + shown(raw));
        }
        return raw.get<std::uint64_t>();
      }
      case Kind::Int: {
        if (!raw.is_number_integer()) refuse(source_, key, "expected an integer, got " + shown(raw));
        if (raw.is_number_unsigned() && raw.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxSweepRunSteps)) {
          refuse(source_, key, "at most 1000000000, got " + shown(raw));
        }
        const long long number = raw.get<long long>();
        if (static_cast<double>(number) < spec.min || number > kMaxSweepRunSteps) {
          refuse(source_, key, "expected an integer from " + std::to_string(static_cast<long long>(spec.min)) +
                                   " to 1000000000, got " + shown(raw));
        }
        return number;
      }
      case Kind::Number: {
        if (!raw.is_number()) refuse(source_, key, "expected a number, got " + shown(raw));
        const double number = raw.get<double>();
        const bool below = spec.min_exclusive ? !(number > spec.min) : !(number >= spec.min);
        if (!std::isfinite(number) || below) {
          refuse(source_, key, std::string("expected a finite number ") + (spec.min_exclusive ? "> " : ">= ") +
                                   nlohmann::json(spec.min).dump() + ", got " + shown(raw));
        }
        return number;
      }
    }
    refuse(source_, key, "unknown kind");
  }

  /// An axis: a non-empty list of values, or a range object.
  std::vector<nlohmann::json> axis(const std::string& key, const ParameterSpec& spec, const Ordered& raw) const {
    std::vector<nlohmann::json> values;
    if (raw.is_array()) {
      if (raw.empty()) refuse(source_, key, "empty axis: give at least one value");
      for (std::size_t i = 0; i < raw.size(); ++i) values.push_back(value(key + "[" + std::to_string(i) + "]", spec, raw[i]));
    } else if (raw.is_object()) {
      values = range(key, spec, raw);
    } else {
      refuse(source_, key, "expected a list of values or a range object {\"from\", \"to\", \"step\" | \"count\"}, got " + shown(raw));
    }
    std::set<std::string> seen;
    for (const nlohmann::json& v : values) {
      if (!seen.insert(v.dump()).second) refuse(source_, key, "the value " + v.dump() + " is listed twice");
    }
    return values;
  }

 private:
  std::vector<nlohmann::json> range(const std::string& key, const ParameterSpec& spec, const Ordered& raw) const {
    if (spec.kind == Kind::Choice) refuse(source_, key, "a range needs a numeric parameter; give a list of names");
    for (const auto& [name, item] : raw.items()) {
      (void)item;
      if (name != "from" && name != "to" && name != "step" && name != "count" && name != "spacing") {
        refuse(source_, key + "." + name, "unknown key in a range (known: from, to, step, count, spacing)");
      }
    }
    if (!raw.contains("from") || !raw.contains("to")) refuse(source_, key, "a range needs \"from\" and \"to\"");
    const bool by_step = raw.contains("step"), by_count = raw.contains("count");
    if (by_step == by_count) refuse(source_, key, "a range needs exactly one of \"step\" and \"count\"");
    std::vector<nlohmann::json> values;
    if (spec.kind == Kind::Int || spec.kind == Kind::Seed) {
      // Integers: from, from + step, …, up to and including `to`.
      if (!by_step || raw.contains("spacing")) refuse(source_, key, "an integer range takes \"from\", \"to\" and \"step\"");
      const nlohmann::json from = value(key + ".from", spec, raw["from"]);
      const nlohmann::json to = value(key + ".to", spec, raw["to"]);
      const Ordered& step_raw = raw["step"];
      if (!step_raw.is_number_integer() || step_raw.get<long long>() < 1) {
        refuse(source_, key + ".step", "expected an integer >= 1, got " + shown(step_raw));
      }
      const std::uint64_t step = step_raw.get<std::uint64_t>();
      const std::uint64_t first = from.get<std::uint64_t>(), last = to.get<std::uint64_t>();
      if (last < first) refuse(source_, key, "the range runs backwards (from " + from.dump() + " to " + to.dump() + ")");
      if ((last - first) / step >= kMaxSweepRuns) refuse(source_, key, "more than " + std::to_string(kMaxSweepRuns) + " values");
      for (std::uint64_t v = first;; v += step) {
        values.push_back(spec.kind == Kind::Seed ? nlohmann::json(v) : nlohmann::json(static_cast<long long>(v)));
        if (last - v < step) break;
      }
      return values;
    }
    const double from = value(key + ".from", spec, raw["from"]).get<double>();
    const double to = value(key + ".to", spec, raw["to"]).get<double>();
    if (by_step) {
      if (raw.contains("spacing")) refuse(source_, key + ".spacing", "only with \"count\"");
      const Ordered& step_raw = raw["step"];
      if (!step_raw.is_number() || !(step_raw.get<double>() > 0.0) || !std::isfinite(step_raw.get<double>())) {
        refuse(source_, key + ".step", "expected a finite number > 0, got " + shown(step_raw));
      }
      const double step = step_raw.get<double>();
      if (to < from) refuse(source_, key, "the range runs backwards");
      // Values from + k·step (not accumulated), k up to the last one within `to` (a relative slack
      // of 1e-9 steps keeps 0.1 to 0.3 by 0.1 at three values).
      const double span = (to - from) / step;
      if (span >= static_cast<double>(kMaxSweepRuns)) refuse(source_, key, "more than " + std::to_string(kMaxSweepRuns) + " values");
      const long count = static_cast<long>(std::floor(span + 1e-9)) + 1;
      for (long k = 0; k < count; ++k) values.push_back(value(key, spec, Ordered(from + static_cast<double>(k) * step)));
      return values;
    }
    const Ordered& count_raw = raw["count"];
    if (!count_raw.is_number_integer() || count_raw.get<long long>() < 1 ||
        count_raw.get<long long>() > static_cast<long long>(kMaxSweepRuns)) {
      refuse(source_, key + ".count", "expected an integer from 1 to " + std::to_string(kMaxSweepRuns) + ", got " + shown(count_raw));
    }
    const long count = count_raw.get<long>();
    std::string spacing = "linear";
    if (raw.contains("spacing")) {
      if (!raw["spacing"].is_string()) refuse(source_, key + ".spacing", "expected \"linear\" or \"log\", got " + shown(raw["spacing"]));
      spacing = raw["spacing"].get<std::string>();
      if (spacing != "linear" && spacing != "log") refuse(source_, key + ".spacing", "expected \"linear\" or \"log\", got '" + spacing + "'");
    }
    if (spacing == "log" && !(from > 0.0 && to > 0.0)) refuse(source_, key, "a log range needs from > 0 and to > 0");
    for (long k = 0; k < count; ++k) {
      const double fraction = count > 1 ? static_cast<double>(k) / static_cast<double>(count - 1) : 0.0;
      // The same formula as kktdae-errdyn's logSpace, so a map here has errdyn's grid.
      const double v = spacing == "log" ? from * std::pow(to / from, fraction) : from + (to - from) * fraction;
      values.push_back(value(key, spec, Ordered(v)));
    }
    return values;
  }

  std::string source_;
  std::string model_;
  SweepMeasure measure_;
  std::vector<const ParameterSpec*> known_;
};

std::string stringField(const std::string& source, const Ordered& document, const std::string& key) {
  if (!document[key].is_string()) refuse(source, key, "expected a string, got " + shown(document[key]));
  return document[key].get<std::string>();
}

const Ordered& objectField(const std::string& source, const Ordered& document, const std::string& key) {
  if (!document[key].is_object()) refuse(source, key, "expected an object of parameters, got " + shown(document[key]));
  return document[key];
}

/// A run whose length is a horizon takes round(horizon / dt) steps: bounded as "steps" is, and
/// checked as doubles, before any conversion to an integer could overflow.
void requireStepsWithinLimit(const std::string& source, const nlohmann::json& params, const std::string& where) {
  const double steps = std::round(params.at("horizon").get<double>() / params.at("dt").get<double>());
  if (!(steps <= static_cast<double>(kMaxSweepRunSteps))) {
    refuse(source, "horizon", "horizon / dt = " + shortest(steps) + " steps (" + where + "); at most " +
                                  std::to_string(kMaxSweepRunSteps) + ": give a shorter horizon or a larger dt");
  }
}

/// runStabilityMap() measures how an error off the manifold evolves and refuses a start on it:
/// the chain without stretch and the circle at x0 = 1 (both defaults) start there.
void requireOffManifold(const std::string& source, const std::string& model, const nlohmann::json& params,
                        const std::string& where) {
  const char* why = ": measure 'stability' needs a start off the manifold (phi(q0) != 0)";
  if (model == "chain" && params.at("stretch").get<double>() == 0.0) {
    refuse(source, "stretch", "0 (" + where + ")" + why + ": give stretch > 0");
  }
  if (model == "circle" && params.at("x0").get<double>() == 1.0) {
    refuse(source, "x0", "1 (" + where + ")" + why + ": give x0 != 1");
  }
}

/// `run`'s parameters with the reference's applied.
nlohmann::json referenceParametersOf(nlohmann::json params, const nlohmann::json& reference) {
  // A reference length replaces the run's: steps and horizon are alternatives.
  if (reference.contains("steps")) params.erase("horizon");
  if (reference.contains("horizon")) params.erase("steps");
  params.update(reference);
  return params;
}

}  // namespace

SweepPlan parseSweepFile(const std::string& text, const std::string& source) {
  const Ordered document = parseStrictJson(text, source);
  if (!document.is_object()) throw std::invalid_argument(source + ": expected a JSON object at the top level");
  const std::set<std::string> top = {"name", "description", "model", "measure", "fixed", "axes", "runs", "reference"};
  for (const auto& [key, item] : document.items()) {
    (void)item;
    if (top.count(key) == 0) {
      refuse(source, key, "unknown key (known: axes, description, fixed, measure, model, name, reference, runs)");
    }
  }

  SweepPlan plan;
  plan.name = document.contains("name") ? stringField(source, document, "name")
                                        : std::filesystem::path(source).stem().string();
  if (plan.name.empty() || plan.name.find_first_of("/\\\n\"") != std::string::npos) {
    refuse(source, "name", "expected a non-empty name without '/', '\\', '\"' or newlines, got '" + plan.name + "'");
  }
  if (document.contains("description")) stringField(source, document, "description");
  if (!document.contains("model")) refuse(source, "model", "missing (one of " + joined(kModels) + ")");
  plan.model = stringField(source, document, "model");
  if (std::find(kModels.begin(), kModels.end(), plan.model) == kModels.end()) {
    refuse(source, "model", "'" + plan.model + "' is not one of " + joined(kModels));
  }
  if (document.contains("measure")) {
    const std::string measure = stringField(source, document, "measure");
    if (measure == "run") {
      plan.measure = SweepMeasure::Run;
    } else if (measure == "stability") {
      plan.measure = SweepMeasure::Stability;
      if (plan.model == "four_bar" || plan.model == "slider_crank") {
        refuse(source, "measure", "'stability' needs a start off the manifold (phi(q0) != 0), and " + plan.model +
                                      " starts assembled: its cells would measure the growth of round-off");
      }
    } else {
      refuse(source, "measure", "'" + measure + "' is not one of run, stability");
    }
  }
  const Parser parser(source, plan.model, plan.measure);

  nlohmann::json fixed = nlohmann::json::object();
  if (document.contains("fixed")) {
    for (const auto& [name, raw] : objectField(source, document, "fixed").items()) {
      const std::string key = "fixed." + name;
      fixed[name] = parser.value(key, parser.spec(key, name), raw);
    }
  }

  if (document.contains("axes") && document.contains("runs")) {
    refuse(source, "runs", "give either \"axes\" (their Cartesian product) or \"runs\" (a listed set), not both");
  }
  // Each entry: the parameters one run sets beyond "fixed".
  std::vector<nlohmann::json> overrides;
  std::set<std::string> varied;
  if (document.contains("axes")) {
    const Ordered& axes = objectField(source, document, "axes");
    if (axes.empty()) refuse(source, "axes", "no axis: give at least one, or leave \"axes\" out for a single run");
    overrides.push_back(nlohmann::json::object());
    // The first axis is the outermost loop: runs are numbered as the nested loops would visit them.
    for (const auto& [name, raw] : axes.items()) {
      const std::string key = "axes." + name;
      const ParameterSpec& spec = parser.spec(key, name);
      if (fixed.contains(name)) refuse(source, key, "also in \"fixed\": give a parameter once");
      const std::vector<nlohmann::json> values = parser.axis(key, spec, raw);
      if (overrides.size() * values.size() > kMaxSweepRuns) {
        refuse(source, "axes", "their product has more than " + std::to_string(kMaxSweepRuns) + " runs");
      }
      std::vector<nlohmann::json> product;
      product.reserve(overrides.size() * values.size());
      for (const nlohmann::json& outer : overrides) {
        for (const nlohmann::json& v : values) {
          nlohmann::json run = outer;
          run[name] = v;
          product.push_back(std::move(run));
        }
      }
      overrides = std::move(product);
      varied.insert(name);
    }
  } else if (document.contains("runs")) {
    const Ordered& runs = document["runs"];
    if (!runs.is_array()) refuse(source, "runs", "expected a list of parameter objects, got " + shown(runs));
    if (runs.empty()) refuse(source, "runs", "empty list: give at least one run");
    if (runs.size() > kMaxSweepRuns) refuse(source, "runs", "more than " + std::to_string(kMaxSweepRuns) + " runs");
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string at = "runs[" + std::to_string(i) + "]";
      if (!runs[i].is_object()) refuse(source, at, "expected an object of parameters, got " + shown(runs[i]));
      nlohmann::json run = nlohmann::json::object();
      for (const auto& [name, raw] : runs[i].items()) {
        const std::string key = at + "." + name;
        const ParameterSpec& spec = parser.spec(key, name);
        if (fixed.contains(name)) refuse(source, key, "also in \"fixed\": give a parameter once");
        run[name] = parser.value(key, spec, raw);
        varied.insert(name);
      }
      overrides.push_back(std::move(run));
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < overrides.size(); ++i) {
      if (!seen.insert(overrides[i].dump()).second) refuse(source, "runs[" + std::to_string(i) + "]", "the same run is listed twice");
    }
  } else {
    overrides.push_back(nlohmann::json::object());
  }

  if (document.contains("reference")) {
    if (plan.measure != SweepMeasure::Run) refuse(source, "reference", "only with measure 'run'");
    nlohmann::json reference = nlohmann::json::object();
    for (const auto& [name, raw] : objectField(source, document, "reference").items()) {
      const std::string key = "reference." + name;
      const ParameterSpec& spec = parser.spec(key, name);
      if (!spec.solver) refuse(source, key, "a reference changes solver settings only (integrator, dt, steps, horizon, rtol, atol, form, path, stabilization, omega, zeta)");
      reference[name] = parser.value(key, spec, raw);
    }
    if (reference.empty()) refuse(source, "reference", "empty: name the reference's integrator and settings");
    plan.reference = reference;
  }

  for (nlohmann::json& run : overrides) {
    nlohmann::json params = fixed;
    params.update(run);
    const std::string where = "run with " + run.dump();
    if (params.contains("steps") && params.contains("horizon")) {
      refuse(source, "steps", "and \"horizon\" both given (" + where + "): a run's length is one of them");
    }
    if (params.contains("seed") && params.contains("tilt")) {
      refuse(source, "seed", "and \"tilt\" both given (" + where + "): the seed draws the tilt");
    }
    for (const ParameterSpec* spec : parametersOf(plan.model, plan.measure)) {
      if (params.contains(spec->name)) continue;
      if (spec->name == "horizon" && plan.measure == SweepMeasure::Stability) {
        params["horizon"] = 2.0;  // runStabilityMap's default
      } else if (spec->name == "steps" && !params.contains("horizon")) {
        params["steps"] = 1000;  // SimulationOptions' default
      } else if (spec->name == "seed" && !params.contains("tilt")) {
        params["seed"] = 0;  // the chapter's seed
      } else if (!spec->fallback.is_null()) {
        params[spec->name] = spec->fallback;
      }
    }
    if (params.contains("horizon")) requireStepsWithinLimit(source, params, where);
    if (plan.measure == SweepMeasure::Stability) requireOffManifold(source, plan.model, params, where);
    run = std::move(params);
  }
  if (plan.reference) {
    for (std::size_t i = 0; i < overrides.size(); ++i) {
      const nlohmann::json reference = referenceParametersOf(overrides[i], *plan.reference);
      if (reference.contains("horizon")) requireStepsWithinLimit(source, reference, "the reference of run " + std::to_string(i));
    }
  }
  plan.runs = std::move(overrides);
  plan.varied.assign(varied.begin(), varied.end());
  return plan;
}

SweepPlan readSweepFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path.string() + ": cannot be read");
  std::stringstream content;
  content << in.rdbuf();
  return parseSweepFile(content.str(), path.string());
}

std::string runKey(const SweepPlan& plan, std::size_t index) { return plan.runs.at(index).dump(); }

nlohmann::json referenceParameters(const SweepPlan& plan, std::size_t index) {
  return plan.reference ? referenceParametersOf(plan.runs.at(index), *plan.reference) : plan.runs.at(index);
}

}  // namespace kktdae::apps
