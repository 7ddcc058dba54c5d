#include "kktdae/models/particle_system.hpp"

#include <Eigen/Geometry>  // cross products for the 3D line normals
#include <cmath>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

std::string indexed(const char* list, std::size_t index) { return std::string(list) + "[" + std::to_string(index) + "]"; }

std::string formatVector(const Eigen::Vector3d& x) {
  return "(" + formatDouble(x[0]) + ", " + formatDouble(x[1]) + ", " + formatDouble(x[2]) + ")";
}

std::string plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

/// Finite, and in 2D in the x–y plane.
void requirePlanarFinite(const std::string& what, const Eigen::Vector3d& x, int dimension) {
  if (!x.allFinite()) throwInvalid(what, "must be finite, got " + formatVector(x));
  if (dimension == 2 && x[2] != 0.0) {
    throwInvalid(what, "z must be 0 in a 2D system, got " + formatVector(x));
  }
}

void requireParticleIndex(const std::string& what, int index, std::size_t particles) {
  if (index < 0 || static_cast<std::size_t>(index) >= particles) {
    throwInvalid(what, "unknown particle index " + std::to_string(index) + " (the system has " +
                           plural(particles, "particle") + ")");
  }
}

void requirePointRef(const std::string& what, const PointRef& point, std::size_t particles, std::size_t anchors) {
  if (point.kind == PointRef::Kind::Particle) {
    requireParticleIndex(what, point.index, particles);
  } else if (point.index < 0 || static_cast<std::size_t>(point.index) >= anchors) {
    throwInvalid(what, "unknown anchor index " + std::to_string(point.index) + " (the system has " +
                           plural(anchors, "anchor") + ")");
  }
}

std::string describe(const PointRef& point) {
  return (point.kind == PointRef::Kind::Particle ? "particle " : "anchor ") + std::to_string(point.index);
}

}  // namespace

ParticleSystemParams ParticleSystemParams::fromPendulumChain(const PendulumChainParams& chain) {
  chain.validate();
  ParticleSystemParams params;
  params.dimension = 3;
  params.gravity = chain.gravity;
  params.anchors = {chain.pivot};
  for (std::size_t k = 0; k < chain.masses.size(); ++k) {
    params.particles.push_back({chain.masses[k], Eigen::Vector3d::Zero()});
    const int link = static_cast<int>(k);
    params.distances.push_back({PointRef::particle(link),
                                link == 0 ? PointRef::anchor(0) : PointRef::particle(link - 1), chain.lengths[k]});
  }
  return params;
}

void ParticleSystemParams::validate() const {
  if (dimension != 2 && dimension != 3) throwInvalid("dimension", "must be 2 or 3, got " + std::to_string(dimension));
  if (particles.empty()) throwInvalid("particles", "at least one particle is needed, got 0");
  requireNonNegative("gravity", gravity);
  for (std::size_t k = 0; k < particles.size(); ++k) {
    requirePositive((indexed("particles", k) + ".mass").c_str(), particles[k].mass);
    requirePlanarFinite(indexed("particles", k) + ".force", particles[k].force, dimension);
  }
  for (std::size_t a = 0; a < anchors.size(); ++a) requirePlanarFinite(indexed("anchors", a), anchors[a], dimension);
  for (std::size_t k = 0; k < distances.size(); ++k) {
    const DistanceConstraintSpec& spec = distances[k];
    const std::string what = indexed("distances", k);
    requirePointRef(what + ".a", spec.a, particles.size(), anchors.size());
    requirePointRef(what + ".b", spec.b, particles.size(), anchors.size());
    if (spec.a.kind == PointRef::Kind::Anchor && spec.b.kind == PointRef::Kind::Anchor) {
      throwInvalid(what, "both ends are anchors (" + describe(spec.a) + " and " + describe(spec.b) +
                             "): the constraint holds no particle");
    }
    if (spec.a.kind == spec.b.kind && spec.a.index == spec.b.index) {
      throwInvalid(what, "both ends are " + describe(spec.a) + " (coincident points: |d| = 0, so its row of J vanishes)");
    }
    requirePositive((what + ".length").c_str(), spec.length);
  }
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const LineConstraintSpec& spec = lines[k];
    const std::string what = indexed("lines", k);
    requireParticleIndex(what + ".particle", spec.particle, particles.size());
    requirePlanarFinite(what + ".point", spec.point, dimension);
    requirePlanarFinite(what + ".direction", spec.direction, dimension);
    if (!(spec.direction.norm() > 0.0)) {
      throwInvalid(what + ".direction", "must be non-zero, got " + formatVector(spec.direction));
    }
  }
}

ParticleSystem::ParticleSystem(ParticleSystemParams params) : params_(std::move(params)) {
  params_.validate();
  dimension_ = params_.dimension;
  nc_ = static_cast<int>(params_.distances.size() + params_.lines.size() * static_cast<std::size_t>(dimension_ - 1));
  for (const DistanceConstraintSpec& spec : params_.distances) {
    jacobian_non_zeros_ += dimension_ * ((spec.a.kind == PointRef::Kind::Particle) + (spec.b.kind == PointRef::Kind::Particle));
  }
  jacobian_non_zeros_ += dimension_ * (dimension_ - 1) * static_cast<int>(params_.lines.size());
  for (const LineConstraintSpec& line : params_.lines) {
    const Eigen::Vector3d u = line.direction.normalized();
    if (dimension_ == 2) {
      line_normals_.emplace_back(-u[1], u[0], 0.0);
    } else {
      // Cross u with the axis it is least aligned with: the product is far from zero, so the
      // normals are well conditioned for every direction.
      Eigen::Index axis = 0;
      u.cwiseAbs().minCoeff(&axis);
      const Eigen::Vector3d n1 = u.cross(Eigen::Vector3d::Unit(axis)).normalized();
      line_normals_.push_back(n1);
      line_normals_.push_back(u.cross(n1));
    }
  }
}

std::string ParticleSystem::name() const {
  return "particle_system(" + std::to_string(dimension_) + "D: " + plural(params_.particles.size(), "particle") +
         ", " + plural(params_.distances.size(), "distance") + ", " + plural(params_.lines.size(), "line") + ")";
}

Eigen::Vector3d ParticleSystem::position(ConstVectorRef q, int index) const {
  requireParticleIndex("index", index, params_.particles.size());
  return particleVector(q, index);
}

Eigen::Vector3d ParticleSystem::particleVector(ConstVectorRef x, int index) const {
  if (dimension_ == 3) return x.segment<3>(3 * index);
  return {x[2 * index], x[2 * index + 1], 0.0};
}

Eigen::Vector3d ParticleSystem::separation(ConstVectorRef q, const DistanceConstraintSpec& spec) const {
  // The same expressions as PendulumChain (segment minus segment, or minus the anchor), so a
  // chain built from data reproduces its J and γ bit for bit.
  const auto point = [&](const PointRef& ref) -> Eigen::Vector3d {
    if (ref.kind == PointRef::Kind::Anchor) return params_.anchors[static_cast<std::size_t>(ref.index)];
    return particleVector(q, ref.index);
  };
  return point(spec.a) - point(spec.b);
}

Eigen::Vector3d ParticleSystem::separationRate(ConstVectorRef v, const DistanceConstraintSpec& spec) const {
  if (spec.b.kind == PointRef::Kind::Anchor) return particleVector(v, spec.a.index);
  if (spec.a.kind == PointRef::Kind::Anchor) return -particleVector(v, spec.b.index);
  return particleVector(v, spec.a.index) - particleVector(v, spec.b.index);
}

void ParticleSystem::writeJacobian(MatrixRef J, int row, int index, const Eigen::Vector3d& row_vector) const {
  for (int c = 0; c < dimension_; ++c) J(row, dimension_ * index + c) = row_vector[c];
}

void ParticleSystem::massDiagonal(ConstVectorRef, VectorRef d) const {
  for (int k = 0; k < particles(); ++k) d.segment(dimension_ * k, dimension_).setConstant(params_.particles[k].mass);
}

void ParticleSystem::bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const {
  // Applied force f = m g_vec + F moved to the left-hand side: h = −f.
  for (int k = 0; k < particles(); ++k) {
    const ParticleSpec& particle = params_.particles[static_cast<std::size_t>(k)];
    for (int c = 0; c < dimension_; ++c) {
      const double weight = c == 1 ? particle.mass * -params_.gravity : 0.0;
      h[dimension_ * k + c] = -(weight + particle.force[c]);
    }
  }
}

void ParticleSystem::constraint(ConstVectorRef q, double, VectorRef phi) const {
  int row = 0;
  for (const DistanceConstraintSpec& spec : params_.distances) {
    const Eigen::Vector3d d = separation(q, spec);
    phi[row++] = 0.5 * (d.dot(d) - spec.length * spec.length);
  }
  std::size_t normal = 0;
  for (const LineConstraintSpec& line : params_.lines) {
    const Eigen::Vector3d offset = particleVector(q, line.particle) - line.point;
    for (int r = 0; r < dimension_ - 1; ++r) phi[row++] = line_normals_[normal++].dot(offset);
  }
}

void ParticleSystem::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  J.setZero();
  int row = 0;
  for (const DistanceConstraintSpec& spec : params_.distances) {
    const Eigen::Vector3d d = separation(q, spec);
    if (spec.a.kind == PointRef::Kind::Particle) writeJacobian(J, row, spec.a.index, d);
    if (spec.b.kind == PointRef::Kind::Particle) writeJacobian(J, row, spec.b.index, -d);
    ++row;
  }
  std::size_t normal = 0;
  for (const LineConstraintSpec& line : params_.lines) {
    for (int r = 0; r < dimension_ - 1; ++r) writeJacobian(J, row++, line.particle, line_normals_[normal++]);
  }
}

void ParticleSystem::constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const {
  int entry = 0;
  auto writeEntries = [&](int row, int particle) {
    for (int axis = 0; axis < dimension_; ++axis, ++entry) {
      rows[entry] = row;
      cols[entry] = dimension_ * particle + axis;
    }
  };
  int row = 0;
  for (const DistanceConstraintSpec& spec : params_.distances) {
    if (spec.a.kind == PointRef::Kind::Particle) writeEntries(row, spec.a.index);
    if (spec.b.kind == PointRef::Kind::Particle) writeEntries(row, spec.b.index);
    ++row;
  }
  for (const LineConstraintSpec& line : params_.lines) {
    for (int r = 0; r < dimension_ - 1; ++r) writeEntries(row++, line.particle);
  }
}

void ParticleSystem::constraintJacobianValues(ConstVectorRef q, double, VectorRef values) const {
  int entry = 0;
  auto writeValues = [&](const Eigen::Vector3d& row_vector) {
    values.segment(entry, dimension_) = row_vector.head(dimension_);
    entry += dimension_;
  };
  for (const DistanceConstraintSpec& spec : params_.distances) {
    const Eigen::Vector3d d = separation(q, spec);
    if (spec.a.kind == PointRef::Kind::Particle) writeValues(d);
    if (spec.b.kind == PointRef::Kind::Particle) writeValues(-d);
  }
  for (const Eigen::Vector3d& normal : line_normals_) writeValues(normal);  // constant rows
}

void ParticleSystem::constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const {
  // φ̈ = d·d̈ + ḋ·ḋ for a distance; a fixed line's J is constant, so its γ is 0.
  int row = 0;
  for (const DistanceConstraintSpec& spec : params_.distances) {
    const Eigen::Vector3d dv = separationRate(v, spec);
    gamma[row++] = dv.dot(dv);
  }
  for (; row < nc_; ++row) gamma[row] = 0.0;
}

double ParticleSystem::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  double twice = 0.0;
  for (int k = 0; k < particles(); ++k) {
    for (int c = 0; c < dimension_; ++c) {
      twice += params_.particles[static_cast<std::size_t>(k)].mass * v[dimension_ * k + c] * v[dimension_ * k + c];
    }
  }
  return 0.5 * twice;
}

double ParticleSystem::potentialEnergy(ConstVectorRef q, double) const {
  // V = Σ m g y − Σ Fᵀp, so that ∇V = h.
  double energy = 0.0;
  for (int k = 0; k < particles(); ++k) {
    const ParticleSpec& particle = params_.particles[static_cast<std::size_t>(k)];
    for (int c = 0; c < dimension_; ++c) {
      const double x = q[dimension_ * k + c];
      energy += (c == 1 ? particle.mass * params_.gravity * x : 0.0) - particle.force[c] * x;
    }
  }
  return energy;
}

State ParticleSystem::makeState(const std::vector<Eigen::Vector3d>& positions,
                                const std::vector<Eigen::Vector3d>& velocities, double t) const {
  requireSize("positions", static_cast<Eigen::Index>(positions.size()), particles());
  if (!velocities.empty()) requireSize("velocities", static_cast<Eigen::Index>(velocities.size()), particles());
  if (!std::isfinite(t)) throwInvalid("t", "must be finite, got " + formatDouble(t));
  State state;
  state.t = t;
  state.q.resize(nq());
  state.v = Vector::Zero(nq());
  for (int k = 0; k < particles(); ++k) {
    const std::size_t i = static_cast<std::size_t>(k);
    requirePlanarFinite(indexed("positions", i), positions[i], dimension_);
    state.q.segment(dimension_ * k, dimension_) = positions[i].head(dimension_);
    if (!velocities.empty()) {
      requirePlanarFinite(indexed("velocities", i), velocities[i], dimension_);
      state.v.segment(dimension_ * k, dimension_) = velocities[i].head(dimension_);
    }
  }
  for (std::size_t k = 0; k < params_.distances.size(); ++k) {
    const DistanceConstraintSpec& spec = params_.distances[k];
    const double distance = separation(state.q, spec).norm();
    // Relative to the rest length: at |d| ≤ 1e-12 L the row dᵀ of J is zero to working precision.
    if (distance <= 1e-12 * spec.length) {
      throwInvalid(indexed("distances", k), describe(spec.a) + " and " + describe(spec.b) +
                                                " coincide in this state (|d| = " + formatDouble(distance) +
                                                "): the constraint's row of J vanishes");
    }
  }
  return state;
}

}  // namespace kktdae
