#include "constraints/constraints_cli.hpp"

#include <cmath>

#include "common/cli_validators.hpp"

namespace kktdae::apps {

void addConstraintsFlags(CLI::App& app, ConstraintsFlags& flags) {
  app.add_option("--seed", flags.seed, "seeds the launch-angle jitter (numpy default_rng); >= 0")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--system", flags.system, "a 1-, 2- or 3-link chain (overridden by --links)")
      ->check(CLI::IsMember({"pendulum", "double", "triple"}))
      ->capture_default_str();
  app.add_option("--integrator", flags.integrator, "fixed-step integrator")
      ->check(CLI::IsMember({"euler", "semi_implicit", "rk4"}))
      ->capture_default_str();
  app.add_option("--stabilization", flags.stabilization, "'all' runs none and baumgarte side by side")
      ->check(CLI::IsMember({"all", "none", "baumgarte"}))
      ->capture_default_str();
  app.add_option("--baumgarte", flags.baumgarte,
                 "Baumgarte frequency omega [rad/s]: feedback 2*omega*phidot + omega^2*phi (critically damped)")
      ->capture_default_str();
  app.add_option("--dt", flags.dt, "time step [s]")->check(finitePositive())->capture_default_str();
  app.add_option("--steps", flags.steps, "number of steps")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_flag("--smoke", flags.smoke, "fixed 800-step run; two runs match byte for byte");
  app.add_option("--device", flags.device, "CPU only; kept for parity with the chapter")
      ->check(CLI::IsMember({"cpu"}))
      ->capture_default_str();
  app.add_option("--out", flags.out, "output directory")->capture_default_str();
  app.add_flag("--rerun,!--no-rerun", flags.rerun,
               "write the recording (CSV and plots); --no-rerun keeps only metrics and the table");
  app.add_option("--links", flags.links, "chain of any number of links (overrides --system)")
      ->check(CLI::PositiveNumber);
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  app.add_option("--tilt", flags.tilt, "launch angle below +x [rad], instead of the seeded draw")
      ->check(finiteNumber());
}

void finishConstraintsFlags(ConstraintsFlags& flags) {
  flags.baumgarte_omega = parseNonNegative("--baumgarte", flags.baumgarte);
}

}  // namespace kktdae::apps
