#include "errdyn/errdyn_maps.hpp"

#include <cmath>

#include "common/gnuplot.hpp"
#include "common/number_format.hpp"
#include "common/output_files.hpp"

namespace kktdae::apps {

std::vector<double> logSpace(double first, double last, int count) {
  std::vector<double> values;
  for (int i = 0; i < count; ++i) {
    const double fraction = count > 1 ? static_cast<double>(i) / (count - 1) : 0.0;
    values.push_back(first * std::pow(last / first, fraction));
  }
  return values;
}

std::vector<std::string> writeStabilityMap(const std::filesystem::path& dir, const std::string& integrator,
                                           const std::string& model, double derived_limit,
                                           const std::vector<StabilityCell>& cells) {
  const std::string stem = "map_" + integrator + "_" + model;
  std::string csv = "dt,omega,dt_omega,code,behaviour\n";
  for (const StabilityCell& cell : cells) {
    csv += shortest(cell.dt) + "," + shortest(cell.omega) + "," + shortest(cell.dt * cell.omega) + "," +
           std::to_string(static_cast<int>(cell.behaviour)) + "," + std::string(toString(cell.behaviour)) + "\n";
  }
  writeFileAtomically(dir / (stem + ".csv"), csv);

  // Points coloured by behaviour on log axes, with the derived limit ω = limit / dt as a line.
  const std::string script =
      "if (!exists(\"outfile\")) outfile = '" + stem + ".png'\n"
      "set terminal pngcairo size 900,650 enhanced font 'DejaVu Sans,11'\nset output outfile\n"
      "set datafile separator ','\nset logscale xy\nset grid\n"
      "set xlabel 'time step dt [s]'\nset ylabel 'Baumgarte frequency {/Symbol w} = {/Symbol b} [rad/s]'\n"
      "set title " + gnuplotQuote("|phi| under " + integrator + " on " + model + " (alpha = beta = omega)") +
      " noenhanced\n"
      "set key bottom left box opaque\nset xrange [0.0008:0.04]\nset yrange [3:6000]\n"
      "set palette defined (0 '#2e7d32', 1 '#9ccc65', 2 '#ffa726', 3 '#c62828')\nset cbrange [-0.5:3.5]\n"
      "set cbtics ('decays' 0, 'bounded' 1, 'grows' 2, 'blow-up' 3)\n"
      "limit = " + shortest(derived_limit) + "\n"
      "plot '" + stem + ".csv' skip 1 using 1:2:4 with points pt 5 ps 2.2 palette notitle, \\\n"
      "     (limit > 0 ? limit / x : 1/0) with lines lw 3 lc rgb 'black' title sprintf('derived limit dt{/Symbol w} = %.3f', limit)\n";
  const PlotOutcome plot = renderPlot(dir, stem + ".gp", stem + ".png", script);
  return {"map: " + (dir / (stem + ".csv")).string(), (plot.rendered ? "plot: " : "plot not rendered: ") + plot.note};
}

}  // namespace kktdae::apps
