#include "mujoco_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace kktdae::bench {
namespace {

constexpr double kLinkLength = 1.0;
constexpr double kMass = 1.0;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

const char* kHeader =
    "  <option timestep=\"0.005\" integrator=\"Euler\" gravity=\"0 0 -9.81\"/>\n";

std::string inertial() {
  return "<inertial pos=\"0 0 0\" mass=\"" + number(kMass) + "\" diaginertia=\"1e-8 1e-8 1e-8\"/>";
}

// URDF, not MJCF: an MJCF joint chain nests one <body> per link, and MuJoCo's XML parser
// (tinyxml2) refuses documents nested deeper than 100 elements, so MJCF stops at 97 links. A
// URDF's links and joints are flat. URDF has no simulation options: makeMujocoChain() sets the
// timestep, integrator and gravity of kHeader on the compiled model instead.
std::string jointChainXml(int links) {
  std::ostringstream xml;
  xml << "<robot name=\"kktdae_joint_chain_" << links << "\">\n  <link name=\"base\"/>\n";
  // Link k's frame is at joint k (the pivot, or mass k−1); its mass sits at +x·L.
  for (int k = 0; k < links; ++k) {
    xml << "  <link name=\"link" << k << "\">\n"
        << "    <inertial><origin xyz=\"" << number(kLinkLength) << " 0 0\"/><mass value=\"" << number(kMass)
        << "\"/><inertia ixx=\"1e-8\" iyy=\"1e-8\" izz=\"1e-8\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\n"
        << "  </link>\n"
        << "  <joint name=\"hinge" << k << "\" type=\"continuous\">\n"
        << "    <parent link=\"" << (k == 0 ? std::string("base") : "link" + std::to_string(k - 1))
        << "\"/><child link=\"link" << k << "\"/>\n"
        << "    <origin xyz=\"" << (k == 0 ? 0.0 : kLinkLength) << " 0 0\"/><axis xyz=\"0 1 0\"/>\n"
        << "  </joint>\n";
  }
  xml << "</robot>\n";
  return xml.str();
}

std::string maximalChainXml(int links, double tilt) {
  std::ostringstream xml;
  // MuJoCo 2.2 sizes its constraint rows by njmax (default 500) and beyond that silently drops
  // constraints (a warning, mjWARN_CNSTRFULL): one row per link, so room for every link.
  xml << "<mujoco model=\"kktdae_maximal_chain_" << links << "\">\n" << kHeader
      << "  <size njmax=\"" << std::max(500, links) << "\"/>\n  <worldbody>\n"
      << "    <site name=\"pivot\" pos=\"0 0 0\"/>\n";
  for (int k = 0; k < links; ++k) {
    const double reach = (k + 1) * kLinkLength;
    xml << "    <body name=\"mass" << k << "\" pos=\"" << number(reach * std::cos(tilt)) << " 0 "
        << number(-reach * std::sin(tilt)) << "\">\n"
        << "      <joint name=\"x" << k << "\" type=\"slide\" axis=\"1 0 0\"/>\n"
        << "      <joint name=\"z" << k << "\" type=\"slide\" axis=\"0 0 1\"/>\n"
        << "      " << inertial() << "\n"
        << "      <site name=\"s" << k << "\" pos=\"0 0 0\"/>\n"
        << "    </body>\n";
  }
  xml << "  </worldbody>\n  <tendon>\n";
  for (int k = 0; k < links; ++k) {
    xml << "    <spatial name=\"link" << k << "\"><site site=\"" << (k == 0 ? std::string("pivot") : "s" + std::to_string(k - 1))
        << "\"/><site site=\"s" << k << "\"/></spatial>\n";
  }
  xml << "  </tendon>\n  <equality>\n";
  for (int k = 0; k < links; ++k) xml << "    <tendon tendon1=\"link" << k << "\" polycoef=\"0 0 0 0 0\"/>\n";
  xml << "  </equality>\n</mujoco>\n";
  return xml.str();
}

}  // namespace

const char* toString(MujocoCoordinates coordinates) {
  return coordinates == MujocoCoordinates::Joint ? "joint" : "maximal";
}

std::string chainXml(MujocoCoordinates coordinates, int links, double tilt) {
  return coordinates == MujocoCoordinates::Joint ? jointChainXml(links) : maximalChainXml(links, tilt);
}

void MujocoChain::reset() {
  mju_copy(data->qpos, launch_qpos.data(), model->nq);
  mju_zero(data->qvel, model->nv);
  data->time = 0.0;
}

std::vector<Eigen::Vector3d> MujocoChain::massPositions() {
  mj_kinematics(model.get(), data.get());
  std::vector<Eigen::Vector3d> positions;
  for (int k = 0; k < links; ++k) {
    // Joint: the mass is body k's centre of mass (xipos); maximal: body k's origin (xpos).
    // Body 0 is the world body.
    const mjtNum* p = coordinates == MujocoCoordinates::Joint ? data->xipos + 3 * (k + 1) : data->xpos + 3 * (k + 1);
    positions.emplace_back(p[0], p[2], 0.0);
  }
  return positions;
}

MujocoChain makeMujocoChain(MujocoCoordinates coordinates, int links, double tilt) {
  const std::string xml = chainXml(coordinates, links, tilt);
  const std::string file_name = "chain.xml";
  auto vfs = std::make_unique<mjVFS>();  // ~2 MB: not on the stack
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), file_name.c_str(), static_cast<int>(xml.size())) != 0) {
    throw std::runtime_error("cannot create the MuJoCo virtual file for the chain");
  }
  const int index = mj_findFileVFS(vfs.get(), file_name.c_str());
  std::memcpy(vfs->filedata[index], xml.data(), xml.size());

  char error[1000] = "";
  MujocoChain chain;
  chain.coordinates = coordinates;
  chain.links = links;
  chain.model.reset(mj_loadXML(file_name.c_str(), vfs.get(), error, sizeof error));
  mj_deleteVFS(vfs.get());
  if (!chain.model) {
    throw std::runtime_error(std::string("MuJoCo could not load the ") + toString(coordinates) + " chain with " +
                             std::to_string(links) + " links: " + error);
  }
  // The options of kHeader (the URDF joint chain cannot carry them).
  chain.model->opt.timestep = 0.005;
  chain.model->opt.integrator = mjINT_EULER;
  chain.model->opt.gravity[0] = 0.0;
  chain.model->opt.gravity[1] = 0.0;
  chain.model->opt.gravity[2] = -9.81;
  chain.data.reset(mj_makeData(chain.model.get()));
  chain.launch_qpos.assign(chain.model->qpos0, chain.model->qpos0 + chain.model->nq);
  if (coordinates == MujocoCoordinates::Joint) chain.launch_qpos[0] = tilt;  // rotation about +ŷ lowers +x
  chain.reset();
  mj_forward(chain.model.get(), chain.data.get());
  return chain;
}

}  // namespace kktdae::bench
