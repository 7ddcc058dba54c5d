// kktdae/multibody: mechanisms from bodies and joints, their outputs and assembly.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/multibody/assembly.hpp"
#include "kktdae/multibody/mechanism_builder.hpp"

namespace kktdae::python {
namespace {

using multibody::Frame;
using multibody::JointKind;
using multibody::JointMotion;
using multibody::Mechanism;
using multibody::MechanismBuilder;

Eigen::Matrix3d toMatrix3(py::handle value, const std::string& where, const char* name) {
  if (value.is_none()) return Eigen::Matrix3d::Identity();
  return toMatrix(value, 3, 3, where, name);
}

JointKind toJointKind(py::handle value) {
  if (py::isinstance<py::str>(value)) return multibody::parseJointKind(value.cast<std::string>());
  return value.cast<JointKind>();
}

void bindFrameAndMotion(py::module_& m) {
  py::enum_<JointKind> kind(m, "JointKind", "What a joint leaves free between its two frames (docs/multibody.md).");
  addNamedValues(kind, valuesUntilUnknown<JointKind>());

  py::class_<Frame>(m, "Frame", "A frame fixed in a body, in that body's frame: origin (3,) and rotation (3, 3).")
      .def(py::init([](py::handle origin, py::handle rotation) {
             return Frame{toVector3(origin, "Frame", "origin"), toMatrix3(rotation, "Frame", "rotation")};
           }),
           py::arg("origin"), py::arg("rotation") = py::none())
      .def_property_readonly("origin", [](const Frame& f) { return toNumpy(Eigen::Vector3d(f.origin)); })
      .def_property_readonly("rotation", [](const Frame& f) { return toNumpy(Eigen::Matrix3d(f.rotation)); })
      .def_static(
          "along_z", [](py::handle origin, py::handle axis) {
            return Frame::alongZ(toVector3(origin, "Frame.along_z", "origin"), toVector3(axis, "Frame.along_z", "axis"));
          },
          py::arg("origin"), py::arg("axis"), "A frame at `origin` whose z axis is `axis`.")
      .def_static("planar", &Frame::planar, py::arg("x"), py::arg("y"), py::arg("angle") = 0.0,
                  "A planar frame at (x, y) turned by `angle` about z.");

  py::class_<JointMotion>(m, "JointMotion", "A prescribed joint coordinate s(t) with its exact derivatives.")
      .def_static("polynomial", &JointMotion::polynomial, py::arg("s0"), py::arg("rate"), py::arg("acceleration") = 0.0,
                  "s(t) = s0 + rate t + ½ acceleration t².")
      .def_static("sinusoid", &JointMotion::sinusoid, py::arg("s0"), py::arg("amplitude"), py::arg("omega"),
                  "s(t) = s0 + amplitude sin(omega t).");
}

void bindMechanism(py::module_& m) {
  py::class_<Mechanism, ConstrainedSystem>(
      m, "Mechanism",
      "Bodies and joints in maximal coordinates as an ordinary ConstrainedSystem (MechanismBuilder.build()).")
      .def("body_index", &Mechanism::bodyIndex, py::arg("name"), "The body's index (−1 for \"ground\").")
      .def("joint_index", &Mechanism::jointIndex, py::arg("name"))
      .def("body_offset", &Mechanism::bodyOffset, py::arg("body"), "Index of the body's first coordinate in q.")
      .def("joint_first_row", &Mechanism::jointFirstRow, py::arg("joint"))
      .def("joint_row_count", &Mechanism::jointRowCount, py::arg("joint"))
      .def("driver_row", &Mechanism::driverRow, py::arg("joint"), "The driver's row of φ (its λ drives), or −1.")
      .def_property_readonly("body_count", &Mechanism::bodyCount)
      .def_property_readonly("joint_count", &Mechanism::jointCount)
      .def("built_configuration", [](const Mechanism& s) { return toNumpy(s.builtConfiguration()); },
           "q of the poses given to the builder (not assembled).")
      .def(
          "point_position",
          [](const Mechanism& s, int body, py::handle point, py::handle q) {
            return toNumpy(Eigen::Vector3d(s.pointPosition(body, toVector3(point, "Mechanism.point_position", "point"),
                                                           toVector(q, s.nq(), "Mechanism.point_position", "q"))));
          },
          py::arg("body"), py::arg("point"), py::arg("q"), "Where a point of the body's frame is, shape (3,).")
      .def(
          "rotation",
          [](const Mechanism& s, int body, py::handle q) {
            return toNumpy(Eigen::Matrix3d(s.rotation(body, toVector(q, s.nq(), "Mechanism.rotation", "q"))));
          },
          py::arg("body"), py::arg("q"), "The rotation from the body's frame to space, shape (3, 3).")
      .def(
          "joint_coordinates",
          [](const Mechanism& s, int joint, py::handle q) {
            return toNumpy(s.jointCoordinates(joint, toVector(q, s.nq(), "Mechanism.joint_coordinates", "q")));
          },
          py::arg("joint"), py::arg("q"), "The joint's read-back coordinates (angle [rad], slide [m]).")
      .def(
          "joint_rates",
          [](const Mechanism& s, int joint, py::handle q, py::handle v) {
            return toNumpy(s.jointRates(joint, toVector(q, s.nq(), "Mechanism.joint_rates", "q"),
                                        toVector(v, s.nq(), "Mechanism.joint_rates", "v")));
          },
          py::arg("joint"), py::arg("q"), py::arg("v"))
      .def(
          "reaction",
          [](const Mechanism& s, int joint, py::handle q, py::handle lam) {
            const multibody::JointReaction r = s.reaction(joint, toVector(q, s.nq(), "Mechanism.reaction", "q"),
                                                          toVector(lam, s.nc(), "Mechanism.reaction", "lam"));
            return py::make_tuple(toNumpy(Eigen::Vector3d(r.force)), toNumpy(Eigen::Vector3d(r.moment)));
          },
          py::arg("joint"), py::arg("q"), py::arg("lam"),
          "(force, moment) the joint exerts on its body B at B's joint origin, in B's joint frame [N, N m].");
}

void bindBuilder(py::module_& m) {
  m.attr("GROUND") = MechanismBuilder::kGround;
  py::class_<MechanismBuilder>(m, "MechanismBuilder", "Bodies, joints, drivers and force elements; build() gives a Mechanism.")
      .def(py::init<std::string>(), py::arg("name"))
      .def(
          "add_planar_body",
          [](MechanismBuilder& b, const std::string& name, double mass, double inertia, double x, double y,
             double angle) { return b.addPlanarBody(name, {mass, inertia}, x, y, angle); },
          py::arg("name"), py::arg("mass"), py::arg("inertia"), py::arg("x") = 0.0, py::arg("y") = 0.0,
          py::arg("angle") = 0.0, "A planar body (x, y, θ) at its centre of mass; returns its index.")
      .def(
          "add_spatial_body",
          [](MechanismBuilder& b, const std::string& name, double mass, py::handle centre_of_mass, py::handle inertia,
             py::handle position, py::handle rotation) {
            multibody::SpatialBodyParams p;
            p.mass = mass;
            p.centre_of_mass = toVector3(centre_of_mass, "add_spatial_body", "centre_of_mass");
            p.inertia = toMatrix3(inertia, "add_spatial_body", "inertia");
            return b.addSpatialBody(name, p, toVector3(position, "add_spatial_body", "position"),
                                    toMatrix3(rotation, "add_spatial_body", "rotation"));
          },
          py::arg("name"), py::arg("mass"), py::arg("centre_of_mass"), py::arg("inertia"), py::arg("position"),
          py::arg("rotation") = py::none(), "A free spatial body in director coordinates; returns its index.")
      .def(
          "add_pivoted_body",
          [](MechanismBuilder& b, const std::string& name, double mass, py::handle centre_of_mass, py::handle inertia,
             py::handle pivot, py::handle pivot_in_space, py::handle rotation) {
            multibody::SpatialBodyParams p;
            p.mass = mass;
            p.centre_of_mass = toVector3(centre_of_mass, "add_pivoted_body", "centre_of_mass");
            p.inertia = toMatrix3(inertia, "add_pivoted_body", "inertia");
            return b.addPivotedBody(name, p, toVector3(pivot, "add_pivoted_body", "pivot"),
                                    toVector3(pivot_in_space, "add_pivoted_body", "pivot_in_space"),
                                    toMatrix3(rotation, "add_pivoted_body", "rotation"));
          },
          py::arg("name"), py::arg("mass"), py::arg("centre_of_mass"), py::arg("inertia"), py::arg("pivot"),
          py::arg("pivot_in_space"), py::arg("rotation") = py::none(),
          "A spatial body turning about a point fixed in space; returns its index.")
      .def(
          "add_joint",
          [](MechanismBuilder& b, const std::string& name, py::handle kind, int body_a, const Frame& frame_a,
             int body_b, const Frame& frame_b, double length) {
            return b.addJoint(name, toJointKind(kind), body_a, frame_a, body_b, frame_b, length);
          },
          py::arg("name"), py::arg("kind"), py::arg("body_a"), py::arg("frame_a"), py::arg("body_b"),
          py::arg("frame_b"), py::arg("length") = 0.0,
          "A joint (kind a JointKind or its name) between two bodies (GROUND allowed); returns its index.")
      .def("drive", &MechanismBuilder::drive, py::arg("joint"), py::arg("motion"),
           "Prescribes the joint's read-back coordinate; its λ is the driving force or torque.")
      .def(
          "set_gravity",
          [](MechanismBuilder& b, py::handle g) { b.setGravity(toVector3(g, "MechanismBuilder.set_gravity", "gravity")); },
          py::arg("gravity"))
      .def(
          "add_spring",
          [](MechanismBuilder& b, const std::string& name, int body_a, py::handle point_a, int body_b,
             py::handle point_b, double stiffness, double damping, double rest_length) {
            b.addSpring(name, body_a, toVector3(point_a, "add_spring", "point_a"), body_b,
                        toVector3(point_b, "add_spring", "point_b"), stiffness, damping, rest_length);
          },
          py::arg("name"), py::arg("body_a"), py::arg("point_a"), py::arg("body_b"), py::arg("point_b"),
          py::arg("stiffness"), py::arg("damping") = 0.0, py::arg("rest_length") = 0.0)
      .def("add_rotational_spring", &MechanismBuilder::addRotationalSpring, py::arg("name"), py::arg("joint"),
           py::arg("stiffness"), py::arg("damping") = 0.0, py::arg("rest_angle") = 0.0,
           py::arg("constant_torque") = 0.0)
      .def("add_actuator", &MechanismBuilder::addActuator, py::arg("name"), py::arg("joint"),
           "An input u acting along the joint's coordinate; returns the input's index.")
      .def("build", &MechanismBuilder::build, "The Mechanism (a ConstrainedSystem).");
}

void bindAssembly(py::module_& m) {
  py::class_<multibody::AssemblyOptions> options(m, "AssemblyOptions", "Gauss–Newton assembly's limits and policy.");
  defKeywordInit(options);
  options.def_readwrite("max_iterations", &multibody::AssemblyOptions::max_iterations)
      .def_readwrite("tolerance", &multibody::AssemblyOptions::tolerance)
      .def_readwrite("rank_deficiency", &multibody::AssemblyOptions::rank_deficiency)
      .def_readwrite("rank_tolerance", &multibody::AssemblyOptions::rank_tolerance);
  py::class_<multibody::AssemblyReport>(m, "AssemblyReport")
      .def_readonly("converged", &multibody::AssemblyReport::converged)
      .def_readonly("iterations", &multibody::AssemblyReport::iterations)
      .def_readonly("residual", &multibody::AssemblyReport::residual)
      .def_readonly("velocity_residual", &multibody::AssemblyReport::velocity_residual)
      .def_readonly("rank", &multibody::AssemblyReport::rank)
      .def_readonly("dependent_rows", &multibody::AssemblyReport::dependent_rows)
      .def_readonly("failing_joint", &multibody::AssemblyReport::failing_joint)
      .def_readonly("message", &multibody::AssemblyReport::message);
  m.def(
      "assemble",
      [](const Mechanism& mechanism, const State& state, const std::vector<std::pair<int, double>>& rates,
         const multibody::AssemblyOptions& opts) {
        State assembled = state;
        std::vector<multibody::IndependentRate> independent;
        for (const auto& [joint, rate] : rates) independent.push_back({joint, rate});
        const multibody::AssemblyReport report = multibody::assemble(mechanism, assembled, independent, opts);
        return py::make_tuple(assembled, report);
      },
      py::arg("mechanism"), py::arg("state"), py::arg("rates") = std::vector<std::pair<int, double>>{},
      py::arg("options") = multibody::AssemblyOptions{},
      "(state, report): the state moved onto φ = 0 and its velocities from [(joint, rate), ...].");
}

}  // namespace

void bindMultibody(py::module_& m) {
  bindFrameAndMotion(m);
  bindMechanism(m);
  bindBuilder(m);
  bindAssembly(m);
}

}  // namespace kktdae::python
