#pragma once
// The benchmarks' pendulum chains as MuJoCo models, built as text in code (URDF for the joint
// chain, whose nesting MJCF cannot hold past 97 links; MJCF for the maximal one) and loaded from
// memory (a MuJoCo virtual file system). Both are planar chains in MuJoCo's x–z plane with
// gravity −9.81 ẑ: our chain's (x, y) is MuJoCo's (x, z). Unit links, 1 kg point masses (an
// inertial with mass 1 and a negligible 1e-8 kg·m² inertia, no geoms: nothing collides), the
// Euler integrator (MuJoCo's is semi-implicit: q̇ first, then q with the new q̇), dt 0.005 s.

#include <mujoco/mujoco.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

namespace kktdae::bench {

/// How the chain is parameterized in MuJoCo.
enum class MujocoCoordinates {
  /// N hinge joints about ŷ, each body one link with its mass at the far end: no constraints,
  /// nv = N (what MuJoCo is built for).
  Joint,
  /// N bodies with two slide joints each (x and z) carrying the masses, consecutive points tied
  /// by a spatial tendon between sites whose length an equality constraint holds (the first to
  /// a site on the world body at the pivot): nv = 2N, N soft constraints with MuJoCo's default
  /// solref/solimp. The same maximal-coordinate DAE kktdae solves.
  Maximal,
};
/// "joint" / "maximal".
const char* toString(MujocoCoordinates coordinates);

/// The model text (joint: URDF; maximal: MJCF) of an N-link chain launched as seed 000's: links along (cos tilt, 0, −sin tilt)
/// (our (cos(−tilt), sin(−tilt))), at rest. Joint: the first hinge starts at `tilt` (qpos), the
/// others at 0. Maximal: the bodies sit at the launch positions, so qpos0 = 0 and every tendon's
/// reference length tendon_length0 is its link's length; MuJoCo's tendon equality holds
/// length − tendon_length0 = polycoef[0], so polycoef[0] = 0 keeps each link at L.
std::string chainXml(MujocoCoordinates coordinates, int links, double tilt);

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};

/// A loaded chain at its launch state: model, data, and the launch qpos (for resets).
struct MujocoChain {
  MujocoCoordinates coordinates = MujocoCoordinates::Joint;
  int links = 0;
  std::unique_ptr<mjModel, MjModelDeleter> model;
  std::unique_ptr<mjData, MjDataDeleter> data;
  std::vector<mjtNum> launch_qpos;

  /// Back to the launch state at t = 0, at rest (no allocation).
  void reset();
  /// The N masses' positions in our frame (x, y) = MuJoCo's (x, z), z = 0, at the current qpos
  /// (runs mj_kinematics).
  std::vector<Eigen::Vector3d> massPositions();
};

/// Builds chainXml(), loads it and sets the launch state. Throws std::runtime_error with
/// MuJoCo's message if the model does not compile.
MujocoChain makeMujocoChain(MujocoCoordinates coordinates, int links, double tilt);

}  // namespace kktdae::bench
