// kktdae/models: the shipped models, their parameters and their state helpers.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/models/andrews_squeezer.hpp"
#include "kktdae/models/car_axis.hpp"
#include "kktdae/models/circle_mass.hpp"
#include "kktdae/models/four_bar.hpp"
#include "kktdae/models/particle_system.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/models/point_on_plane.hpp"
#include "kktdae/models/slider_crank.hpp"
#include "kktdae/models/spring_chain.hpp"

namespace kktdae::python {
namespace {

/// A 3-vector field as a (3,) numpy property.
template <typename T, typename Class>
void defVector3(Class& type, const char* name, Eigen::Vector3d T::*field, const char* doc) {
  const std::string where = std::string(py::str(type.attr("__name__"))) + "." + name;
  type.def_property(
      name, [field](const T& self) { return readOnly(toNumpy(Eigen::Vector3d(self.*field))); },
      [field, where](T& self, py::handle value) { self.*field = toVector3(value, where, "value"); }, doc);
}

std::vector<Eigen::Vector3d> toPoints(py::handle value, const std::string& where, const char* name) {
  std::vector<Eigen::Vector3d> points;
  if (value.is_none()) return points;
  for (py::handle item : py::iter(value)) points.push_back(toVector3(item, where, name));
  return points;
}

py::list fromPoints(const std::vector<Eigen::Vector3d>& points) {
  py::list list;
  for (const auto& p : points) list.append(readOnly(toNumpy(Eigen::Vector3d(p))));
  return list;
}

void bindPendulumChain(py::module_& m) {
  py::class_<PendulumChainParams> params(m, "PendulumChainParams",
                                         "Masses and lengths of a PendulumChain; link k joins particle k to k−1.");
  defKeywordInit(params);
  params.def_readwrite("masses", &PendulumChainParams::masses, "m_k > 0 [kg], one per link (a list).")
      .def_readwrite("lengths", &PendulumChainParams::lengths, "L_k > 0 [m], one per link (a list).")
      .def_readwrite("gravity", &PendulumChainParams::gravity, "g ≥ 0 [m/s²] along −y.")
      .def_static("uniform", &PendulumChainParams::uniform, py::arg("links"), py::arg("mass") = 1.0,
                  py::arg("length") = 1.0, "n links of equal mass and length (seed 000: 1 kg, 1 m).")
      .def("validate", &PendulumChainParams::validate, "Raises ValueError naming the first bad field.");
  defVector3(params, "pivot", &PendulumChainParams::pivot, "Fixed anchor of the first link [m], shape (3,).");
  defRepr(params, {"masses", "lengths", "gravity", "pivot"});

  py::class_<PendulumChain, ParametricSystem>(
      m, "PendulumChain",
      "N point masses in 3D (q of size 3N) with φ_k = ½(|d_k|² − L_k²), d_k = p_k − p_{k−1}; gravity along −y.\n"
      "λ_k [N/m]: the force on particle k from link k is λ_k d_k. Parameters 'masses[k]', 'gravity'.")
      .def(py::init<PendulumChainParams>(), py::arg("params"), "Raises ValueError for invalid parameters.")
      .def(py::init([](int links, double mass, double length) {
             return PendulumChain(PendulumChainParams::uniform(links, mass, length));
           }),
           py::arg("links"), py::arg("mass") = 1.0, py::arg("length") = 1.0,
           "A uniform chain: PendulumChain(2) is seed 000's double pendulum.")
      .def("initial_state", &PendulumChain::initialState, py::arg("tilt"),
           "Seed 000's launch: links along +x rotated `tilt` rad below the horizontal, at rest, t = 0.")
      .def(
          "link_length_violation",
          [](const PendulumChain& c, py::handle q) -> py::object {
            const char* const where = "PendulumChain.link_length_violation";
            const auto array = realArray(q, where, "q");
            if (array.ndim() != 2) return py::float_(c.linkLengthViolation(toVector(array, c.nq(), where, "q")));
            // One row per state (a recording's q): the chapter's violation of each.
            const Matrix rows = toMatrix(array, array.shape(0), c.nq(), where, "q");
            Vector out(rows.rows());
            for (Eigen::Index i = 0; i < rows.rows(); ++i) out[i] = c.linkLengthViolation(rows.row(i).transpose());
            return toNumpy(out);
          },
          py::arg("q"),
          "Seed 000's violation: max_k | |d_k| − L_k | [m] of q (nq,); of each row of q (n, nq), as (n,)\n"
          "(chain.link_length_violation(result.recording.q) is the chapter's per-step |len err|).")
      .def("energy_scale", &PendulumChain::energyScale, "Σm · g · ΣL [J], seed 000's energy normaliser.")
      .def(
          "tip",
          [](const PendulumChain& c, py::handle q) {
            return toNumpy(Eigen::Vector3d(c.tip(toVector(q, c.nq(), "PendulumChain.tip", "q"))));
          },
          py::arg("q"), "Position of the last particle, shape (3,).")
      .def_property_readonly("links", &PendulumChain::links, "Number of links N.")
      .def_property_readonly("params", [](const PendulumChain& s) { return s.params(); }, "The parameters (a copy).");
}

void bindSpringChain(py::module_& m) {
  py::class_<SpringChainParams> params(m, "SpringChainParams",
                                       "A PendulumChain's parameters plus bending springs and dampers at its inner joints.");
  defKeywordInit(params);
  params.def_readwrite("chain", &SpringChainParams::chain, "The chain (PendulumChainParams).")
      .def_readwrite("joint_stiffness", &SpringChainParams::joint_stiffness, "k ≥ 0 [N·m/rad] of every inner joint.")
      .def_readwrite("joint_damping", &SpringChainParams::joint_damping, "c ≥ 0 [N·m·s/rad] of every inner joint.")
      .def("validate", &SpringChainParams::validate, "Raises ValueError naming the first bad field.");
  defRepr(params, {"chain", "joint_stiffness", "joint_damping"});

  py::class_<SpringChain, ParametricSystem>(
      m, "SpringChain",
      "A PendulumChain with V += ½ k Σ θ_j² and Rayleigh damping ½ c Σ θ̇_j² over the relative angles θ_j of\n"
      "neighbouring links in the x–y plane: the force-stiff chain (docs/integrators.md). Parameters 'masses[k]',\n"
      "'gravity', 'joint_stiffness', 'joint_damping'.")
      .def(py::init<SpringChainParams>(), py::arg("params"), "Raises ValueError for invalid parameters.")
      .def("initial_state", &SpringChain::initialState, py::arg("tilt"),
           "The straight chain (the springs' rest shape) rotated `tilt` rad below +x, at rest, t = 0.")
      .def(
          "joint_angle",
          [](const SpringChain& c, py::handle q, int joint) {
            return c.jointAngle(toVector(q, c.nq(), "SpringChain.joint_angle", "q"), joint);
          },
          py::arg("q"), py::arg("joint"), "θ_j of joint j in [0, links − 1) [rad].")
      .def(
          "tip",
          [](const SpringChain& c, py::handle q) {
            return toNumpy(Eigen::Vector3d(c.tip(toVector(q, c.nq(), "SpringChain.tip", "q"))));
          },
          py::arg("q"), "Position of the last particle, shape (3,).")
      .def_property_readonly("links", &SpringChain::links, "Number of links N.")
      .def_property_readonly("params", [](const SpringChain& s) { return s.params(); }, "The parameters (a copy).");
}

void bindCircleAndPlane(py::module_& m) {
  py::class_<CircleMassParams> circle_params(m, "CircleMassParams", "Seed 002's mass on a circle (defaults are its values).");
  defKeywordInit(circle_params);
  circle_params.def_readwrite("mass", &CircleMassParams::mass, "m > 0 [kg]")
      .def_readwrite("gravity", &CircleMassParams::gravity, "g ≥ 0 [m/s²] along −y")
      .def_readwrite("radius", &CircleMassParams::radius, "L > 0 [m]")
      .def("validate", &CircleMassParams::validate, "Raises ValueError naming the bad field.");
  defRepr(circle_params, {"mass", "gravity", "radius"});
  py::class_<CircleMass, ConstrainedSystem>(
      m, "CircleMass", "q = (x, y), M = m I, φ = x² + y² − L², J = [2x 2y]; λ [N/m] < 0 pulls toward the centre.")
      .def(py::init<CircleMassParams>(), py::arg("params") = CircleMassParams{})
      .def("initial_state", &CircleMass::initialState, py::arg("x0_over_radius") = 1.01,
           "Seed 002's start: at rest at (x0_over_radius · L, 0).")
      .def_property_readonly("params", [](const CircleMass& s) { return s.params(); }, "The parameters (a copy).");

  py::class_<PointOnPlaneParams> plane_params(m, "PointOnPlaneParams", "A point mass held to nᵀq = c.");
  defKeywordInit(plane_params);
  plane_params.def_readwrite("dimension", &PointOnPlaneParams::dimension, "2 (a line) or 3 (a plane)")
      .def_readwrite("mass", &PointOnPlaneParams::mass, "m > 0 [kg]")
      .def_readwrite("gravity", &PointOnPlaneParams::gravity, "g ≥ 0 [m/s²] along −y")
      .def_readwrite("offset", &PointOnPlaneParams::offset, "c [m]")
      .def("validate", &PointOnPlaneParams::validate, "Raises ValueError naming the bad field.");
  defVector3(plane_params, "normal", &PointOnPlaneParams::normal, "n, normalized on construction, shape (3,).");
  defRepr(plane_params, {"dimension", "mass", "gravity", "normal", "offset"});
  py::class_<PointOnPlane, ConstrainedSystem>(
      m, "PointOnPlane", "A point mass on a line or plane: the model on which Baumgarte's linear theory is exact.")
      .def(py::init<PointOnPlaneParams>(), py::arg("params") = PointOnPlaneParams{})
      .def("off_manifold_state", &PointOnPlane::offManifoldState, py::arg("e0"), py::arg("edot0"),
           py::arg("sliding") = 0.0, "A state with constraint error e0 and rate edot0, sliding along the line.")
      .def_property_readonly("params", [](const PointOnPlane& s) { return s.params(); }, "The parameters (a copy).");
}

void bindMechanisms(py::module_& m) {
  py::enum_<FourBarBranch>(m, "FourBarBranch", "Which closure of the loop: C left (OPEN) or right (CROSSED) of B→D.")
      .value("OPEN", FourBarBranch::Open)
      .value("CROSSED", FourBarBranch::Crossed);
  py::class_<FourBarParams> four(m, "FourBarParams", "Dimensions and point masses of a four-bar (defaults: a Grashof crank-rocker).");
  defKeywordInit(four);
  four.def_readwrite("ground", &FourBarParams::ground, "|AD| [m]")
      .def_readwrite("crank", &FourBarParams::crank, "|AB| [m]")
      .def_readwrite("coupler", &FourBarParams::coupler, "|BC| [m]")
      .def_readwrite("rocker", &FourBarParams::rocker, "|DC| [m]")
      .def_readwrite("mass_b", &FourBarParams::mass_b, "m_B [kg] at the crank pin")
      .def_readwrite("mass_c", &FourBarParams::mass_c, "m_C [kg] at the coupler–rocker joint")
      .def_readwrite("mass_p", &FourBarParams::mass_p, "m_P [kg] at the coupler point")
      .def_readwrite("point_along", &FourBarParams::point_along, "P's offset from B along the coupler [m]")
      .def_readwrite("point_normal", &FourBarParams::point_normal, "P's offset across the coupler [m], ≠ 0")
      .def_readwrite("gravity", &FourBarParams::gravity, "g ≥ 0 [m/s²] along −y")
      .def("validate", &FourBarParams::validate, "Raises ValueError naming the field and value.");
  defRepr(four, {"ground", "crank", "coupler", "rocker", "mass_b", "mass_c", "mass_p", "point_along", "point_normal",
                 "gravity"});
  py::class_<FourBar, ConstrainedSystem>(
      m, "FourBar", "The four-bar in joint coordinates q = (θ1, θ2, θ3), nc = 2, nu = 1 (crank torque).")
      .def(py::init<FourBarParams>(), py::arg("params") = FourBarParams{})
      .def_property_readonly("params", [](const FourBar& s) { return s.params(); }, "The parameters (a copy).");
  m.def("assemble_four_bar",
        [](const FourBarParams& p, double angle, FourBarBranch branch) {
          return toNumpy(Vector(assembleFourBar(p, angle, branch)));
        },
        py::arg("params"), py::arg("crank_angle"), py::arg("branch") = FourBarBranch::Open,
        "q = (θ1, θ2, θ3) of the closed loop at crank angle θ1; ValueError where it cannot close.");
  m.def("four_bar_state", &fourBarState, py::arg("params"), py::arg("crank_angle"), py::arg("crank_rate"),
        py::arg("branch") = FourBarBranch::Open, py::arg("t") = 0.0,
        "A consistent state (φ = 0, J q̇ = 0) at crank angle and rate.");
  m.def("four_bar_twin", &fourBarTwin, py::arg("params"),
        "The four-bar in maximal coordinates, as ParticleSystemParams.");

  py::enum_<SliderCrankBranch>(m, "SliderCrankBranch", "Which closure: the slider right or left of the crank pin.")
      .value("RIGHT", SliderCrankBranch::Right)
      .value("LEFT", SliderCrankBranch::Left);
  py::class_<SliderCrankParams> slider(m, "SliderCrankParams", "Dimensions and point masses of a slider-crank.");
  defKeywordInit(slider);
  slider.def_readwrite("crank", &SliderCrankParams::crank, "r [m]")
      .def_readwrite("rod", &SliderCrankParams::rod, "l [m]")
      .def_readwrite("offset", &SliderCrankParams::offset, "e [m], the guide y = e")
      .def_readwrite("mass_b", &SliderCrankParams::mass_b, "m_B [kg]")
      .def_readwrite("mass_slider", &SliderCrankParams::mass_slider, "m_S [kg]")
      .def_readwrite("mass_p", &SliderCrankParams::mass_p, "m_P [kg]")
      .def_readwrite("point_along", &SliderCrankParams::point_along, "P along the rod [m]")
      .def_readwrite("point_normal", &SliderCrankParams::point_normal, "P across the rod [m], ≠ 0")
      .def_readwrite("gravity", &SliderCrankParams::gravity, "g ≥ 0 [m/s²]")
      .def("validate", &SliderCrankParams::validate, "Raises ValueError naming the field and value.");
  defRepr(slider, {"crank", "rod", "offset", "mass_b", "mass_slider", "mass_p", "point_along", "point_normal", "gravity"});
  py::class_<SliderCrank, ConstrainedSystem>(
      m, "SliderCrank", "The slider-crank in joint coordinates q = (θ, ψ, s), nc = 2, nu = 1 (slider force).")
      .def(py::init<SliderCrankParams>(), py::arg("params") = SliderCrankParams{})
      .def_property_readonly("params", [](const SliderCrank& s) { return s.params(); }, "The parameters (a copy).");
  m.def("assemble_slider_crank",
        [](const SliderCrankParams& p, double angle, SliderCrankBranch branch) {
          return toNumpy(Vector(assembleSliderCrank(p, angle, branch)));
        },
        py::arg("params"), py::arg("crank_angle"), py::arg("branch") = SliderCrankBranch::Right,
        "q = (θ, ψ, s) of the closed mechanism at crank angle θ.");
  m.def("slider_crank_state", &sliderCrankState, py::arg("params"), py::arg("crank_angle"), py::arg("crank_rate"),
        py::arg("branch") = SliderCrankBranch::Right, py::arg("t") = 0.0, "A consistent state at crank angle and rate.");
  m.def("slider_crank_twin", &sliderCrankTwin, py::arg("params"), py::arg("slider_force") = 0.0,
        "The slider-crank in maximal coordinates, as ParticleSystemParams.");
}

void bindParticleSystem(py::module_& m) {
  py::class_<PointRef> ref(m, "PointRef", "One end of a distance constraint: a particle or an anchor, by index.");
  py::enum_<PointRef::Kind>(ref, "Kind").value("PARTICLE", PointRef::Kind::Particle).value("ANCHOR", PointRef::Kind::Anchor);
  ref.def_readwrite("kind", &PointRef::kind).def_readwrite("index", &PointRef::index)
      .def_static("particle", &PointRef::particle, py::arg("index"), "The particle with this index.")
      .def_static("anchor", &PointRef::anchor, py::arg("index"), "The anchor with this index.");
  defRepr(ref, {"kind", "index"});
  ref.def(py::pickle([](const PointRef& r) { return py::make_tuple(r.kind, r.index); },
                     [](const py::tuple& t) { return PointRef{t[0].cast<PointRef::Kind>(), t[1].cast<int>()}; }));

  py::class_<DistanceConstraintSpec> distance(m, "DistanceConstraintSpec",
                                              "A rigid link φ = ½(|p_a − p_b|² − L²) between two points.");
  distance.def(py::init([](PointRef a, PointRef b, double length) { return DistanceConstraintSpec{a, b, length}; }),
               py::arg("a"), py::arg("b"), py::arg("length") = 1.0)
      .def_readwrite("a", &DistanceConstraintSpec::a).def_readwrite("b", &DistanceConstraintSpec::b)
      .def_readwrite("length", &DistanceConstraintSpec::length, "L > 0 [m]");
  defRepr(distance, {"a", "b", "length"});
  distance.def(py::pickle([](const DistanceConstraintSpec& d) { return py::make_tuple(d.a, d.b, d.length); },
                          [](const py::tuple& t) {
                            return DistanceConstraintSpec{t[0].cast<PointRef>(), t[1].cast<PointRef>(), t[2].cast<double>()};
                          }));

  py::class_<LineConstraintSpec> line(m, "LineConstraintSpec", "A frictionless slider: the particle stays on a line.");
  line.def(py::init([](int particle, py::handle point, py::handle direction) {
             LineConstraintSpec spec;
             spec.particle = particle;
             if (!point.is_none()) spec.point = toVector3(point, "LineConstraintSpec", "point");
             if (!direction.is_none()) spec.direction = toVector3(direction, "LineConstraintSpec", "direction");
             return spec;
           }),
           py::arg("particle") = 0, py::arg("point") = py::none(), py::arg("direction") = py::none())
      .def_readwrite("particle", &LineConstraintSpec::particle);
  defVector3(line, "point", &LineConstraintSpec::point, "A point of the line [m].");
  defVector3(line, "direction", &LineConstraintSpec::direction, "Non-zero direction.");
  defRepr(line, {"particle", "point", "direction"});
  line.def(py::pickle(
      [](const LineConstraintSpec& l) {
        return py::make_tuple(l.particle, toNumpy(Eigen::Vector3d(l.point)), toNumpy(Eigen::Vector3d(l.direction)));
      },
      [](const py::tuple& t) {
        LineConstraintSpec spec;
        spec.particle = t[0].cast<int>();
        spec.point = toVector3(t[1], "LineConstraintSpec", "point");
        spec.direction = toVector3(t[2], "LineConstraintSpec", "direction");
        return spec;
      }));

  py::class_<ParticleSpec> particle(m, "ParticleSpec", "A point mass and the constant external force on it.");
  particle.def(py::init([](double mass, py::handle force) {
                 ParticleSpec spec;
                 spec.mass = mass;
                 if (!force.is_none()) spec.force = toVector3(force, "ParticleSpec", "force");
                 return spec;
               }),
               py::arg("mass") = 1.0, py::arg("force") = py::none())
      .def_readwrite("mass", &ParticleSpec::mass, "m > 0 [kg]");
  defVector3(particle, "force", &ParticleSpec::force, "Constant external force [N].");
  defRepr(particle, {"mass", "force"});
  particle.def(py::pickle(
      [](const ParticleSpec& p) { return py::make_tuple(p.mass, toNumpy(Eigen::Vector3d(p.force))); },
      [](const py::tuple& t) {
        ParticleSpec spec;
        spec.mass = t[0].cast<double>();
        spec.force = toVector3(t[1], "ParticleSpec", "force");
        return spec;
      }));

  py::class_<ParticleSystemParams> params(
      m, "ParticleSystemParams",
      "Particles, anchors, distance and line constraints of a ParticleSystem. The list fields are copies:\n"
      "assign whole lists (params.particles = [...]), appending to the returned list changes nothing.");
  defKeywordInit(params);
  params.def_readwrite("dimension", &ParticleSystemParams::dimension, "2 or 3")
      .def_readwrite("gravity", &ParticleSystemParams::gravity, "g ≥ 0 [m/s²] along −y")
      .def_readwrite("particles", &ParticleSystemParams::particles, "list of ParticleSpec")
      .def_property(
          "anchors", [](const ParticleSystemParams& p) { return fromPoints(p.anchors); },
          [](ParticleSystemParams& p, py::handle value) {
            p.anchors = toPoints(value, "ParticleSystemParams.anchors", "anchor");
          },
          "list of fixed points [m], each shape (3,)")
      .def_readwrite("distances", &ParticleSystemParams::distances, "list of DistanceConstraintSpec")
      .def_readwrite("lines", &ParticleSystemParams::lines, "list of LineConstraintSpec")
      .def_static("from_pendulum_chain", &ParticleSystemParams::fromPendulumChain, py::arg("chain"),
                  "The particle system that is exactly this pendulum chain.")
      .def("validate", &ParticleSystemParams::validate, "Raises ValueError naming the first bad item.");
  defRepr(params, {"dimension", "gravity", "particles", "anchors", "distances", "lines"});

  py::class_<ParticleSystem, ConstrainedSystem>(m, "ParticleSystem",
                                                "Point masses with anchors, rods and sliders, built from data.")
      .def(py::init<ParticleSystemParams>(), py::arg("params"))
      .def(
          "position",
          [](const ParticleSystem& s, py::handle q, int index) {
            return toNumpy(Eigen::Vector3d(s.position(toVector(q, s.nq(), "ParticleSystem.position", "q"), index)));
          },
          py::arg("q"), py::arg("index"), "Position of particle `index` (z = 0 in 2D), shape (3,).")
      .def(
          "make_state",
          [](const ParticleSystem& s, py::handle positions, py::handle velocities, double t) {
            return s.makeState(toPoints(positions, "ParticleSystem.make_state", "positions"),
                               toPoints(velocities, "ParticleSystem.make_state", "velocities"), t);
          },
          py::arg("positions"), py::arg("velocities") = py::none(), py::arg("t") = 0.0,
          "The state with these positions (and velocities; at rest when omitted).")
      .def_property_readonly("dimension", &ParticleSystem::dimension)
      .def_property_readonly("particles", &ParticleSystem::particles, "Number of particles.")
      .def_property_readonly("params", [](const ParticleSystem& s) { return s.params(); }, "The parameters (a copy).");
}

/// The IVP Test Set's two problems with the Test Set's parameters, for runs from Python (their
/// starts and references: test_set_case).
void bindTestSetModels(py::module_& m) {
  py::class_<AndrewsSqueezer, ConstrainedSystem>(
      m, "AndrewsSqueezer", "Andrews' squeezing mechanism (IVP Test Set): 7 angles, 6 loop-closure constraints.")
      .def(py::init<>());
  py::class_<CarAxis, ConstrainedSystem>(
      m, "CarAxis", "The IVP Test Set's car axis: 4 coordinates, 2 constraints, a stiff spring suspension.")
      .def(py::init<>());
}

}  // namespace

void bindModels(py::module_& m) {
  bindPendulumChain(m);
  bindSpringChain(m);
  bindCircleAndPlane(m);
  bindParticleSystem(m);
  bindMechanisms(m);
  bindTestSetModels(m);
}

}  // namespace kktdae::python
