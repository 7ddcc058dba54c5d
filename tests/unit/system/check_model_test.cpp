// checkModel(): every shipped model passes, and each mistake a user's model can make is named
// (problem, method, entry) rather than merely failing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "support/test_models.hpp"
#include "unit/autodiff/ad_test_models.hpp"

using namespace kktdae;

namespace {

constexpr double kMass = 2.0, kGravity = 9.81, kLength = 1.5, kPlaneSpeed = 0.3;

/// A correct hand-written model, the base of one test model per mistake: a point mass m at
/// q = (x, y, z) (y up) on a rod of length L to the origin, φ₀ = ½(|q|² − L²), and in the plane
/// z = w t that moves along z, φ₁ = z − w t (so ∂φ₁/∂t = −w); J = [qᵀ; 0 0 1], γ = (|q̇|², 0).
/// With `sparse`, J also in compressed form (row 0 on columns 0, 1, 2; row 1 on column 2).
class PlanePendulum : public ConstrainedSystem {
 public:
  explicit PlanePendulum(bool sparse = false) : sparse_(sparse) {}
  std::string name() const override { return "plane_pendulum"; }
  int nq() const override { return 3; }
  int nc() const override { return 2; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setConstant(kMass); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, kMass * kGravity, 0.0; }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override {
    phi[0] = 0.5 * (q.squaredNorm() - kLength * kLength);
    phi[1] = q[2] - kPlaneSpeed * t;
  }
  void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override {
    J.row(0) = q.transpose();
    J.row(1) << 0.0, 0.0, 1.0;
  }
  void constraintTimeDerivative(ConstVectorRef, double, VectorRef phi_t) const override { phi_t << 0.0, -kPlaneSpeed; }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    gamma << v.squaredNorm(), 0.0;
  }
  bool isTimeDependent() const override { return true; }
  int jacobianNonZeros() const override { return sparse_ ? 4 : 0; }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    rows << 0, 0, 0, 1;
    cols << 0, 1, 2, 2;
  }
  void constraintJacobianValues(ConstVectorRef q, double, VectorRef values) const override {
    values << q[0], q[1], q[2], 1.0;
  }
  double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return 0.5 * kMass * v.squaredNorm(); }
  double potentialEnergy(ConstVectorRef q, double) const override { return kMass * kGravity * q[1]; }

 private:
  bool sparse_;
};

/// The state every mistake is checked at: off both constraints, t ≠ 0, all rates non-zero.
State offManifoldState() { return State{0.7, Eigen::Vector3d(0.4, -1.1, 0.25), Eigen::Vector3d(0.6, -0.3, 0.9)}; }

ModelCheckOptions conservative() {
  ModelCheckOptions options;
  options.check_conservative_bias = true;
  return options;
}

/// The findings of one problem in one method.
std::vector<ModelFinding> findingsOf(const ModelCheckReport& report, ModelProblem problem, const std::string& method) {
  std::vector<ModelFinding> found;
  std::copy_if(report.findings.begin(), report.findings.end(), std::back_inserter(found),
               [&](const ModelFinding& f) { return f.problem == problem && f.method == method; });
  return found;
}

/// The one finding of `problem` in `method` at states[0]; fails the test unless there is exactly one.
ModelFinding onlyFinding(const ModelCheckReport& report, ModelProblem problem, const std::string& method) {
  INFO(report.describe());
  const std::vector<ModelFinding> found = findingsOf(report, problem, method);
  REQUIRE(found.size() == 1);
  CHECK(found[0].state_index == 0);
  return found[0];
}

void requirePasses(const ConstrainedSystem& system, const ModelCheckOptions& options,
                   const std::vector<State>& states = {}) {
  const ModelCheckReport report = checkModel(system, states, options);
  INFO(report.describe());
  CHECK(report.ok());
  CHECK(report.states.size() == (states.empty() ? static_cast<std::size_t>(options.random_states) : states.size()));
}

}  // namespace

TEST_CASE("checkModel: every shipped model passes, the conservative-bias check included", "[system][check_model]") {
  const ModelCheckOptions options = conservative();
  SECTION("pendulum chains, dense and sparse J") {
    for (int links : {1, 2, 3, 7}) {
      PendulumChainParams params = PendulumChainParams::uniform(links);
      params.masses.back() = 2.5;
      params.pivot << 0.1, -0.2, 0.3;
      requirePasses(PendulumChain(params), options);
    }
  }
  SECTION("circle mass") { requirePasses(CircleMass(CircleMassParams{2.0, 9.81, 1.5}), options); }
  SECTION("point on a plane, 2D and 3D") {
    for (int dimension : {2, 3}) {
      PointOnPlaneParams params;
      params.dimension = dimension;
      requirePasses(PointOnPlane(params), options);
    }
  }
  SECTION("four-bar (LagrangianSystem, actuated) at random angles and assembled") {
    const FourBar four_bar;
    requirePasses(four_bar, options);
    requirePasses(four_bar, options, {fourBarState(four_bar.params(), 0.8, 1.3)});
  }
  SECTION("slider-crank (LagrangianSystem, actuated)") {
    const SliderCrank slider_crank;
    requirePasses(slider_crank, options);
    requirePasses(slider_crank, options, {sliderCrankState(slider_crank.params(), 0.8, 1.3, SliderCrankBranch::Right, 0.4)});
  }
  SECTION("particle systems: the four-bar's and the slider-crank's maximal-coordinate twins, sparse J") {
    requirePasses(ParticleSystem(fourBarTwin(FourBarParams{})), options);
    requirePasses(ParticleSystem(sliderCrankTwin(SliderCrankParams{}, 3.0)), options);
  }
  SECTION("automatic derivatives: AutoDiffConstraints and LagrangianSystem, time-dependent") {
    requirePasses(testing::AdPendulumChain(PendulumChainParams::uniform(3)), options);
    testing::JointDoublePendulum::Params slot;
    slot.rotating_slot = true;
    requirePasses(testing::LagrangianDoublePendulum(slot), options);
    requirePasses(testing::JointDoublePendulum(slot), options);
  }
  SECTION("this file's correct base model, dense and sparse") {
    requirePasses(PlanePendulum(false), options, {offManifoldState()});
    requirePasses(PlanePendulum(true), options, {offManifoldState()});
  }
}

TEST_CASE("checkModel: a forgotten row of J is named, entry by entry", "[system][check_model]") {
  // The outside model that got "rows are dependent" from the solve and passed the derivative check.
  struct ForgetsJacobianRow final : PlanePendulum {
    void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override { J.row(0) = q.transpose(); }
  };
  const ModelCheckReport report = checkModel(ForgetsJacobianRow{}, {offManifoldState()});
  INFO(report.describe());
  const std::vector<ModelFinding> unwritten = findingsOf(report, ModelProblem::Unwritten, "constraintJacobian");
  REQUIRE(unwritten.size() == 3);
  for (int col = 0; col < 3; ++col) {
    CHECK(unwritten[col].row == 1);
    CHECK(unwritten[col].col == col);
    CHECK(std::isnan(unwritten[col].got));
    CHECK(unwritten[col].state.t == offManifoldState().t);
  }
  CHECK(report.findings.size() == 3);  // the finite differences are not run on an unwritten J
}

TEST_CASE("checkModel: a forgotten entry of phi is named", "[system][check_model]") {
  struct ForgetsPhiRow final : PlanePendulum {
    void constraint(ConstVectorRef q, double, VectorRef phi) const override {
      phi[0] = 0.5 * (q.squaredNorm() - kLength * kLength);
    }
  };
  const ModelFinding f = onlyFinding(checkModel(ForgetsPhiRow{}, {offManifoldState()}), ModelProblem::Unwritten, "constraint");
  CHECK(f.row == 1);
  CHECK(f.col == -1);
}

TEST_CASE("checkModel: an output updated instead of written (+=) is named", "[system][check_model]") {
  struct AccumulatesBias final : PlanePendulum {
    void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override {
      h[0] = 0.0;
      h[1] += kMass * kGravity;
      h[2] = 0.0;
    }
  };
  const ModelFinding f =
      onlyFinding(checkModel(AccumulatesBias{}, {offManifoldState()}), ModelProblem::DependsOnOutput, "bias");
  CHECK(f.row == 1);
  CHECK(std::isnan(f.got));  // the NaN-filled call
  CHECK(std::isfinite(f.expected));
}

TEST_CASE("checkModel: a write past the end of an output is named", "[system][check_model]") {
  struct WritesFourEntries final : PlanePendulum {
    void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override {
      h << 0.0, kMass * kGravity, 0.0;
      h.data()[3] = 0.0;  // what `h << 0, m g, 0, 0` does in a build without Eigen's assertions
    }
  };
  const ModelFinding f =
      onlyFinding(checkModel(WritesFourEntries{}, {offManifoldState()}), ModelProblem::WritesPastEnd, "bias");
  CHECK(f.row == 3);
  CHECK(f.got == 0.0);
}

// Without NDEBUG, Eigen's own assertions stop these two mistakes before checkModel sees them
// (that is the protection a debug build has); these are what release builds let through.
#ifdef NDEBUG
TEST_CASE("checkModel (release build): a comma initializer with too few entries is named", "[system][check_model]") {
  struct ShortCommaInitializer final : PlanePendulum {
    void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, kMass * kGravity; }
  };
  const ModelFinding f = onlyFinding(checkModel(ShortCommaInitializer{}, {offManifoldState()}), ModelProblem::Unwritten, "bias");
  CHECK(f.row == 2);
}

TEST_CASE("checkModel (release build): a 3x1 expression assigned to a 1x3 J is named", "[system][check_model]") {
  // One constraint (the rod): J is 1×3, and `J = q` reads q with a column stride of 3, past its end.
  struct ColumnIntoRow final : ConstrainedSystem {
    std::string name() const override { return "column_into_row"; }
    int nq() const override { return 3; }
    int nc() const override { return 1; }
    MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
    void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setConstant(kMass); }
    void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, kMass * kGravity, 0.0; }
    void constraint(ConstVectorRef q, double, VectorRef phi) const override {
      phi[0] = 0.5 * (q.squaredNorm() - kLength * kLength);
    }
    void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override { J = q; }
    void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
      gamma[0] = v.squaredNorm();
    }
    double potentialEnergy(ConstVectorRef q, double) const override { return kMass * kGravity * q[1]; }
  };
  const ModelCheckReport report = checkModel(ColumnIntoRow{}, {offManifoldState()});
  INFO(report.describe());
  const std::vector<ModelFinding> garbage = findingsOf(report, ModelProblem::NonFinite, "constraintJacobian");
  REQUIRE(garbage.size() == 2);  // J(0, 0) = q[0] is right by luck; (0, 1) and (0, 2) read past q
  CHECK(garbage[0].row == 0);
  CHECK(garbage[0].col == 1);
  CHECK(garbage[1].col == 2);
}
#endif

TEST_CASE("checkModel: a wrong entry of J is named with both values", "[system][check_model]") {
  struct WrongSign final : PlanePendulum {
    void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override {
      J.row(0) << q[0], -q[1], q[2];
      J.row(1) << 0.0, 0.0, 1.0;
    }
  };
  const State state = offManifoldState();
  const ModelFinding f = onlyFinding(checkModel(WrongSign{}, {state}), ModelProblem::JacobianMismatch, "constraintJacobian");
  CHECK(f.row == 0);
  CHECK(f.col == 1);
  CHECK(f.got == -state.q[1]);
  CHECK(f.expected == Approx(state.q[1]).epsilon(1e-8));
}

TEST_CASE("checkModel: a forgotten dphi/dt is named", "[system][check_model]") {
  struct ForgetsTimeDerivative final : PlanePendulum {
    void constraintTimeDerivative(ConstVectorRef, double, VectorRef phi_t) const override { phi_t.setZero(); }
  };
  const ModelFinding f = onlyFinding(checkModel(ForgetsTimeDerivative{}, {offManifoldState()}),
                                     ModelProblem::TimeDerivativeMismatch, "constraintTimeDerivative");
  CHECK(f.row == 1);
  CHECK(f.got == 0.0);
  CHECK(f.expected == Approx(-kPlaneSpeed).epsilon(1e-8));
}

TEST_CASE("checkModel: a dropped gamma is named", "[system][check_model]") {
  struct DropsGamma final : PlanePendulum {
    void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef gamma) const override { gamma.setZero(); }
  };
  const State state = offManifoldState();
  const ModelFinding f = onlyFinding(checkModel(DropsGamma{}, {state}), ModelProblem::GammaMismatch, "constraintBias");
  CHECK(f.row == 0);
  CHECK(f.expected == Approx(state.v.squaredNorm()).epsilon(1e-7));
}

TEST_CASE("checkModel: a sparse J that differs from the dense one, or a repeated position, is named",
          "[system][check_model]") {
  SECTION("values") {
    struct WrongSparseValue final : PlanePendulum {
      WrongSparseValue() : PlanePendulum(true) {}
      void constraintJacobianValues(ConstVectorRef q, double, VectorRef values) const override {
        values << q[0], q[1], 2.0 * q[2], 1.0;
      }
    };
    const State state = offManifoldState();
    const ModelFinding f =
        onlyFinding(checkModel(WrongSparseValue{}, {state}), ModelProblem::SparseValuesMismatch, "constraintJacobianValues");
    CHECK(f.row == 0);
    CHECK(f.col == 2);
    CHECK(f.expected == state.q[2]);
    CHECK(f.got == 2.0 * state.q[2]);
  }
  SECTION("pattern") {
    struct RepeatedPosition final : PlanePendulum {
      RepeatedPosition() : PlanePendulum(true) {}
      void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
        rows << 0, 0, 0, 0;
        cols << 0, 1, 2, 2;
      }
    };
    const ModelCheckReport report = checkModel(RepeatedPosition{}, {offManifoldState()});
    INFO(report.describe());
    const std::vector<ModelFinding> found =
        findingsOf(report, ModelProblem::SparsePatternInvalid, "constraintJacobianPattern");
    REQUIRE(found.size() == 1);
    CHECK(found[0].row == 0);
    CHECK(found[0].col == 2);
    CHECK(found[0].got == 3);  // the pattern entry k that repeats (0, 2)
    CHECK(found[0].state_index == -1);
  }
}

namespace {

/// PlanePendulum with an evaluateTerms() override that writes every term itself, as a user's
/// fused call would; `wrong` changes one term (the test models below), the rest are right.
struct FusedPlanePendulum : PlanePendulum {
  explicit FusedPlanePendulum(bool sparse = false) : PlanePendulum(sparse) {}
  void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override {
    out.h << 0.0, kMass * kGravity, 0.0;
    out.phi << 0.5 * (q.squaredNorm() - kLength * kLength), q[2] - kPlaneSpeed * t;
    if (out.J.size() > 0) {
      out.J.row(0) = q.transpose();
      out.J.row(1) << 0.0, 0.0, 1.0;
    }
    if (out.jacobian_values.size() > 0) out.jacobian_values << q[0], q[1], q[2], 1.0;
    out.gamma << v.squaredNorm(), 0.0;
    out.phi_t << 0.0, -kPlaneSpeed;
    wrong(q, v, t, out);
  }
  virtual void wrong(ConstVectorRef, ConstVectorRef, double, ModelTermsOutput&) const {}
};

}  // namespace

TEST_CASE("checkModel: an evaluateTerms override that gets one term wrong is named, with the term and entry",
          "[system][check_model]") {
  const State state = offManifoldState();
  SECTION("the correct override passes, dense and sparse") {
    requirePasses(FusedPlanePendulum(false), conservative(), {state});
    requirePasses(FusedPlanePendulum(true), conservative(), {state});
  }
  SECTION("gamma dropped: only the fused call is wrong, the per-term methods pass") {
    struct DropsGamma final : FusedPlanePendulum {
      void wrong(ConstVectorRef, ConstVectorRef, double, ModelTermsOutput& out) const override { out.gamma.setZero(); }
    };
    const ModelCheckReport report = checkModel(DropsGamma{}, {state});
    const ModelFinding f = onlyFinding(report, ModelProblem::EvaluateTermsMismatch, "evaluateTerms (gamma)");
    CHECK(f.row == 0);
    CHECK(f.col == -1);
    CHECK(f.expected == state.v.squaredNorm());
    CHECK(f.got == 0.0);
    CHECK(report.findings.size() == 1);  // gamma[1] is 0 in both, and nothing else is wrong
  }
  SECTION("phi_t left unwritten (the default's setZero() forgotten)") {
    struct ForgetsPhiT final : FusedPlanePendulum {
      void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override {
        Vector keep = out.phi_t;  // what the caller's storage held
        FusedPlanePendulum::evaluateTerms(q, v, t, out);
        out.phi_t[1] = keep[1];
      }
    };
    const ModelFinding f = onlyFinding(checkModel(ForgetsPhiT{}, {state}), ModelProblem::Unwritten, "evaluateTerms (phi_t)");
    CHECK(f.row == 1);
  }
  SECTION("a wrong sign in J, dense only: the sparse request is right") {
    struct WrongSign final : FusedPlanePendulum {
      void wrong(ConstVectorRef q, ConstVectorRef, double, ModelTermsOutput& out) const override {
        if (out.J.size() > 0) out.J(0, 1) = -q[1];
      }
    };
    WrongSign model;
    const ModelCheckReport report = checkModel(model, {state});
    const ModelFinding f = onlyFinding(report, ModelProblem::EvaluateTermsMismatch, "evaluateTerms (J)");
    CHECK(f.row == 0);
    CHECK(f.col == 1);
    CHECK(f.expected == state.q[1]);
    CHECK(f.got == -state.q[1]);
    CHECK(f.detail.find("constraintJacobian()") != std::string::npos);
    CHECK(f.detail.find("dense J") != std::string::npos);
  }
  SECTION("a wrong sparse value: named under jacobian_values by its index") {
    struct WrongValue final : FusedPlanePendulum {
      WrongValue() : FusedPlanePendulum(true) {}
      void wrong(ConstVectorRef q, ConstVectorRef, double, ModelTermsOutput& out) const override {
        if (out.jacobian_values.size() > 0) out.jacobian_values[2] = 2.0 * q[2];
      }
    };
    const ModelCheckReport report = checkModel(WrongValue{}, {state});
    const ModelFinding f = onlyFinding(report, ModelProblem::EvaluateTermsMismatch, "evaluateTerms (jacobian_values)");
    CHECK(f.row == 2);
    CHECK(f.got == 2.0 * state.q[2]);
    CHECK(f.detail.find("sparse values") != std::string::npos);
    CHECK(report.findings.size() == 1);
  }
  SECTION("h off by 1e-8 relative: below what the finite differences can see, not below round-off") {
    struct SlightlyWrongGravity final : FusedPlanePendulum {
      void wrong(ConstVectorRef, ConstVectorRef, double, ModelTermsOutput& out) const override {
        out.h[1] = kMass * kGravity * (1.0 + 1e-8);
      }
    };
    const ModelCheckReport report = checkModel(SlightlyWrongGravity{}, {state}, conservative());
    const ModelFinding f = onlyFinding(report, ModelProblem::EvaluateTermsMismatch, "evaluateTerms (h)");
    CHECK(f.row == 1);
    CHECK(f.expected == kMass * kGravity);
    CHECK(report.findings.size() == 1);
  }
  SECTION("a throwing override is one finding, not one per term") {
    struct Throws final : FusedPlanePendulum {
      void evaluateTerms(ConstVectorRef, ConstVectorRef, double, ModelTermsOutput&) const override {
        throw std::runtime_error("not implemented yet");
      }
    };
    const ModelCheckReport report = checkModel(Throws{}, {state});
    const ModelFinding f = onlyFinding(report, ModelProblem::Threw, "evaluateTerms");
    CHECK(f.detail.find("not implemented yet") != std::string::npos);
    CHECK(report.findings.size() == 1);
  }
}

TEST_CASE("checkModel: an evaluateTerms override that only orders its operations differently passes",
          "[system][check_model]") {
  // φ₀ and γ₀ summed in the other order, the constant folded differently: the bits differ from
  // the per-term methods' at some of the states (asserted, so the test checks the tolerance),
  // the values do not.
  struct Reordered final : FusedPlanePendulum {
    void wrong(ConstVectorRef q, ConstVectorRef v, double, ModelTermsOutput& out) const override {
      out.phi[0] = (0.5 * q[2] * q[2] + 0.5 * q[1] * q[1] + 0.5 * q[0] * q[0]) - 0.5 * kLength * kLength;
      out.gamma[0] = v[2] * v[2] + v[1] * v[1] + v[0] * v[0];
    }
  };
  const Reordered model;
  ModelCheckOptions options = conservative();
  options.random_states = 20;
  const ModelCheckReport report = checkModel(model, {}, options);
  INFO(report.describe());
  CHECK(report.ok());
  int differing = 0;
  for (const State& s : report.states) {
    Vector phi(2), gamma(2), fused_phi(2), fused_gamma(2), h(3), phi_t(2);
    Matrix J(2, 3);
    Eigen::Map<Vector> no_values(nullptr, 0);
    model.constraint(s.q, s.t, phi);
    model.constraintBias(s.q, s.v, s.t, gamma);
    ModelTermsOutput out{h, fused_phi, J, no_values, fused_gamma, phi_t};
    model.evaluateTerms(s.q, s.v, s.t, out);
    differing += (phi[0] != fused_phi[0]) + (gamma[0] != fused_gamma[0]);
  }
  CHECK(differing > 0);
}

TEST_CASE("checkModel: a mistake in a per-term method is named once, not again under evaluateTerms",
          "[system][check_model]") {
  struct ForgetsPhiRow final : PlanePendulum {  // the default evaluateTerms() calls constraint()
    void constraint(ConstVectorRef q, double, VectorRef phi) const override {
      phi[0] = 0.5 * (q.squaredNorm() - kLength * kLength);
    }
  };
  const ModelCheckReport report = checkModel(ForgetsPhiRow{}, {offManifoldState()});
  INFO(report.describe());
  CHECK(report.findings.size() == 1);
  CHECK(report.findings.at(0).method == "constraint");
}

TEST_CASE("checkModel: an asymmetric, an indefinite and a wrongly declared M are named", "[system][check_model]") {
  SECTION("asymmetric") {
    struct Asymmetric final : PlanePendulum {
      MassStructure massStructure() const override { return MassStructure::General; }
      void massMatrix(ConstVectorRef, MatrixRef M) const override { M << 2, 0.5, 0, 0, 2, 0, 0, 0, 2; }
      double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return 0.5 * v.dot(matrix() * v); }
      static Eigen::Matrix3d matrix() { return (Eigen::Matrix3d() << 2, 0.5, 0, 0, 2, 0, 0, 0, 2).finished(); }
    };
    const ModelFinding f = onlyFinding(checkModel(Asymmetric{}, {offManifoldState()}), ModelProblem::MassAsymmetric, "massMatrix");
    CHECK(f.row == 0);
    CHECK(f.col == 1);
    CHECK(f.expected == 0.0);
    CHECK(f.got == 0.5);
  }
  SECTION("not positive definite: M = diag(2, 2, -2)") {
    struct NegativeMass final : PlanePendulum {
      void massDiagonal(ConstVectorRef, VectorRef d) const override { d << 2.0, 2.0, -2.0; }
      double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override {
        return v[0] * v[0] + v[1] * v[1] - v[2] * v[2];
      }
    };
    const ModelFinding f =
        onlyFinding(checkModel(NegativeMass{}, {offManifoldState()}), ModelProblem::MassNotPositiveDefinite, "massMatrix");
    CHECK(f.row == 2);  // diagonal as declared: the entry is named
    CHECK(f.col == 2);
    CHECK(f.got == -2.0);
  }
  SECTION("not positive definite on null(J), general M: the smallest eigenvalue of ZᵀMZ") {
    // M has eigenvalues −1, 1, 3. null(J) at the state is z ∝ (q₁, −q₀, 0) (J's rows are q and
    // e₃): with the coupling +2, zᵀMz = (1.37 + 1.76)/1.37 > 0 and the block form solves the
    // model (no finding); with −2 it is (1.37 − 1.76)/1.37 = −0.2847 and the model is refused.
    struct Indefinite final : PlanePendulum {
      explicit Indefinite(double coupling) : coupling_(coupling) {}
      MassStructure massStructure() const override { return MassStructure::General; }
      void massMatrix(ConstVectorRef, MatrixRef M) const override { M << 1, coupling_, 0, coupling_, 1, 0, 0, 0, 1; }
      double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override {
        return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + coupling_ * v[0] * v[1];
      }
      double coupling_;
    };
    CHECK(checkModel(Indefinite{2.0}, {offManifoldState()}).ok());
    const ModelFinding f =
        onlyFinding(checkModel(Indefinite{-2.0}, {offManifoldState()}), ModelProblem::MassNotPositiveDefinite, "massMatrix");
    CHECK(f.got == Approx(-0.39 / 1.37).epsilon(1e-12));
    // The words say what the numbers are: not "expected 0, got -0.28", which reads like a bound of 0.
    CHECK_THAT(f.describe(), Catch::Contains("smallest eigenvalue -0.28467") && Catch::Contains("expected > 0"));
    CHECK_THAT(f.describe(), Catch::Contains("null(J)") && !Catch::Contains("expected 0,"));
  }
  SECTION("massDiagonal() inconsistent with massMatrix()") {
    struct TwoMasses final : PlanePendulum {
      void massMatrix(ConstVectorRef, MatrixRef M) const override { M = kMass * Matrix::Identity(3, 3); }
      void massDiagonal(ConstVectorRef, VectorRef d) const override { d << kMass, kMass, 2.0 * kMass; }
    };
    const ModelFinding f =
        onlyFinding(checkModel(TwoMasses{}, {offManifoldState()}), ModelProblem::MassDiagonalMismatch, "massDiagonal");
    CHECK(f.row == 2);
    CHECK(f.expected == kMass);
    CHECK(f.got == 2.0 * kMass);
  }
  SECTION("declared Diagonal, with an off-diagonal entry") {
    struct NotDiagonal final : PlanePendulum {
      MassStructure massStructure() const override { return MassStructure::Diagonal; }
      void massMatrix(ConstVectorRef, MatrixRef M) const override {
        M = kMass * Matrix::Identity(3, 3);
        M(0, 2) = M(2, 0) = 0.25;
      }
      double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override {
        return 0.5 * kMass * v.squaredNorm() + 0.25 * v[0] * v[2];
      }
    };
    const ModelCheckReport report = checkModel(NotDiagonal{}, {offManifoldState()});
    INFO(report.describe());
    const std::vector<ModelFinding> found = findingsOf(report, ModelProblem::MassStructureViolated, "massMatrix");
    REQUIRE(found.size() == 2);  // (0, 2) and (2, 0)
    CHECK(found[0].row == 0);
    CHECK(found[0].col == 2);
    CHECK(found[0].got == 0.25);
    CHECK(found[1].row == 2);
    CHECK(found[1].col == 0);
    CHECK(report.findings.size() == 2);
  }
  SECTION("declared ConstantDiagonal, with a mass that depends on q") {
    struct VaryingMass final : PlanePendulum {
      void massDiagonal(ConstVectorRef q, VectorRef d) const override { d << kMass, kMass, kMass + q[0] * q[0]; }
      double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override {
        return 0.5 * kMass * v.squaredNorm() + 0.5 * q[0] * q[0] * v[2] * v[2];
      }
    };
    State second = offManifoldState();
    second.q[0] = 0.9;
    const ModelCheckReport report = checkModel(VaryingMass{}, {offManifoldState(), second});
    INFO(report.describe());
    const std::vector<ModelFinding> found = findingsOf(report, ModelProblem::MassStructureViolated, "massDiagonal");
    REQUIRE(found.size() == 1);
    CHECK(found[0].row == 2);
    CHECK(found[0].state_index == 1);
    CHECK(found[0].expected == kMass + 0.4 * 0.4);
    CHECK(found[0].got == kMass + 0.9 * 0.9);
  }
  SECTION("declared Diagonal without massDiagonal(): the default's exception is a finding") {
    struct NoDiagonal final : PlanePendulum {
      MassStructure massStructure() const override { return MassStructure::Diagonal; }
      void massDiagonal(ConstVectorRef q, VectorRef d) const override { ConstrainedSystem::massDiagonal(q, d); }
    };
    const ModelFinding f = onlyFinding(checkModel(NoDiagonal{}, {offManifoldState()}), ModelProblem::Threw, "massDiagonal");
    CHECK(f.detail.find("massDiagonal()") != std::string::npos);
  }
}

TEST_CASE("checkModel: gravity on the wrong axis is named by the opt-in conservative-bias check",
          "[system][check_model]") {
  // The outside model's mistake: V = m g z (z up) but h puts m g on y.
  struct GravityOnY final : PlanePendulum {
    double potentialEnergy(ConstVectorRef q, double) const override { return kMass * kGravity * q[2]; }
  };
  const State state = offManifoldState();
  SECTION("off by default: not every model's h at rest is conservative") {
    const ModelCheckReport report = checkModel(GravityOnY{}, {state});
    INFO(report.describe());
    CHECK(report.ok());
  }
  SECTION("opted in: both wrong entries, with dV/dq and h") {
    const ModelCheckReport report = checkModel(GravityOnY{}, {state}, conservative());
    INFO(report.describe());
    const std::vector<ModelFinding> found = findingsOf(report, ModelProblem::BiasNotConservative, "bias");
    REQUIRE(found.size() == 2);
    CHECK(found[0].row == 1);
    CHECK(found[0].expected == Approx(0.0).margin(1e-8));
    CHECK(found[0].got == kMass * kGravity);
    CHECK(found[1].row == 2);
    CHECK(found[1].expected == Approx(kMass * kGravity).epsilon(1e-8));
    CHECK(found[1].got == 0.0);
    CHECK(report.findings.size() == 2);
  }
}

TEST_CASE("checkModel: a kinetic energy that is not 1/2 v'Mv is named", "[system][check_model]") {
  struct NoHalf final : PlanePendulum {
    double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return kMass * v.squaredNorm(); }
  };
  const State state = offManifoldState();
  const ModelFinding f = onlyFinding(checkModel(NoHalf{}, {state}), ModelProblem::KineticEnergyMismatch, "kineticEnergy");
  CHECK(f.expected == Approx(0.5 * kMass * state.v.squaredNorm()).epsilon(1e-14));
  CHECK(f.got == kMass * state.v.squaredNorm());
}

TEST_CASE("checkModel: an input map not written when nu > 0 is named", "[system][check_model]") {
  SECTION("no override: the default's exception is the finding") {
    struct ActuatedWithoutMap final : PlanePendulum {
      int nu() const override { return 1; }
    };
    const ModelFinding f = onlyFinding(checkModel(ActuatedWithoutMap{}, {offManifoldState()}), ModelProblem::Threw, "inputMap");
    CHECK(f.detail.find("inputMap()") != std::string::npos);
  }
  SECTION("an override that writes one row of two") {
    struct HalfMap final : PlanePendulum {
      int nu() const override { return 2; }
      void inputMap(ConstVectorRef, double, MatrixRef S) const override { S.row(0) << 1.0, 0.0, 0.0; }
    };
    const ModelCheckReport report = checkModel(HalfMap{}, {offManifoldState()});
    INFO(report.describe());
    const std::vector<ModelFinding> found = findingsOf(report, ModelProblem::Unwritten, "inputMap");
    REQUIRE(found.size() == 3);
    CHECK(found[0].row == 1);
    CHECK(found[0].col == 0);
    CHECK(found[2].row == 1);
    CHECK(found[2].col == 2);
    CHECK(report.findings.size() == 3);
  }
}

TEST_CASE("checkModel: invalid sizes are findings, and nothing is evaluated", "[system][check_model]") {
  struct NoCoordinates final : PlanePendulum {
    int nq() const override { return 0; }
  };
  struct NegativeConstraints final : PlanePendulum {
    int nc() const override { return -1; }
  };
  const ModelCheckReport none = checkModel(NoCoordinates{});
  INFO(none.describe());
  REQUIRE(none.findings.size() == 1);
  CHECK(none.findings[0].problem == ModelProblem::InvalidSize);
  CHECK(none.findings[0].method == "nq");
  CHECK(none.findings[0].got == 0.0);
  const ModelCheckReport negative = checkModel(NegativeConstraints{});
  REQUIRE(negative.findings.size() == 1);
  CHECK(negative.findings[0].method == "nc");
  CHECK(negative.findings[0].got == -1.0);
}

TEST_CASE("checkModel: findings beyond max_findings_per_kind are counted, not listed", "[system][check_model]") {
  // A 10-link chain that forgets J entirely: 30·10 unwritten entries, one mistake.
  struct ChainWithoutJacobian final : testing::ForwardingChain {
    ChainWithoutJacobian() : ForwardingChain(10) {}
    std::string name() const override { return "chain_without_jacobian"; }
    void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  };
  ModelCheckOptions options;
  options.max_findings_per_kind = 4;
  const ModelCheckReport report = checkModel(ChainWithoutJacobian{}, {}, options);
  const std::vector<ModelFinding> listed = findingsOf(report, ModelProblem::Unwritten, "constraintJacobian");
  CHECK(listed.size() == 4);
  CHECK(report.omitted_findings == 3 * 10 * 30 - 4);  // every state's entries
  CHECK(!report.ok());
  CHECK(report.describe().find("more of the same kinds") != std::string::npos);
}

TEST_CASE("checkModel: bad options and bad states are refused, naming the field", "[system][check_model]") {
  const PlanePendulum model;
  ModelCheckOptions options;
  options.random_states = 1;
  CHECK_THROWS_WITH(checkModel(model, {}, options), Catch::Contains("random_states"));
  options = {};
  options.relative_tolerance = -1.0;
  CHECK_THROWS_WITH(checkModel(model, {}, options), Catch::Contains("relative_tolerance"));
  options = {};
  options.terms_relative_tolerance = -1e-10;
  CHECK_THROWS_WITH(checkModel(model, {}, options), Catch::Contains("terms_relative_tolerance"));
  State short_state = offManifoldState();
  short_state.q = Eigen::Vector2d(1.0, 2.0);
  CHECK_THROWS_WITH(checkModel(model, {offManifoldState(), short_state}), Catch::Contains("states[1].q: size 2, expected 3"));
}

TEST_CASE("checkModel: the random states are reproducible and describe() names method, entry and state",
          "[system][check_model]") {
  struct ForgetsPhiRow final : PlanePendulum {
    void constraint(ConstVectorRef q, double, VectorRef phi) const override {
      phi[0] = 0.5 * (q.squaredNorm() - kLength * kLength);
    }
  };
  const ModelCheckReport first = checkModel(ForgetsPhiRow{});
  const ModelCheckReport second = checkModel(ForgetsPhiRow{});
  CHECK(first.describe() == second.describe());
  REQUIRE(first.states.size() == 3);
  CHECK(first.states[0].q != first.states[1].q);
  const std::string line = first.findings.at(0).describe();
  INFO(line);
  CHECK(line.find("constraint entry 1: unwritten") == 0);
  CHECK(line.find("at states[0] (t = " + formatDouble(first.states[0].t)) != std::string::npos);
  CHECK(line.find("q = (" + formatDouble(first.states[0].q[0])) != std::string::npos);
}
