#include "kktdae/models/pendulum_chain.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {

PendulumChainParams PendulumChainParams::uniform(int links, double mass, double length) {
  if (links < 1) throwInvalid("links", "must be >= 1, got " + std::to_string(links));
  PendulumChainParams params;
  params.masses.assign(static_cast<std::size_t>(links), mass);
  params.lengths.assign(static_cast<std::size_t>(links), length);
  return params;
}

void PendulumChainParams::validate() const {
  if (masses.empty()) throwInvalid("masses", "a chain needs at least one link, got 0 masses");
  if (lengths.size() != masses.size()) {
    throwInvalid("lengths", "size " + std::to_string(lengths.size()) + ", expected " +
                                std::to_string(masses.size()) + " (one per mass)");
  }
  for (std::size_t k = 0; k < masses.size(); ++k) {
    requirePositive(("masses[" + std::to_string(k) + "]").c_str(), masses[k]);
    requirePositive(("lengths[" + std::to_string(k) + "]").c_str(), lengths[k]);
  }
  requireNonNegative("gravity", gravity);
  requireFinite("pivot", pivot);
}

PendulumChain::PendulumChain(PendulumChainParams params) : params_(std::move(params)) {
  params_.validate();
}

std::string PendulumChain::name() const { return "pendulum_chain(" + std::to_string(links()) + ")"; }

void PendulumChain::massDiagonal(ConstVectorRef, VectorRef d) const {
  for (int k = 0; k < links(); ++k) d.segment<3>(3 * k).setConstant(params_.masses[k]);
}

void PendulumChain::bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const {
  // Gravity f = m (0, −g, 0) moved to the left-hand side: h = −f.
  for (int k = 0; k < links(); ++k) {
    h.segment<3>(3 * k) << 0.0, -(params_.masses[k] * -params_.gravity), 0.0;
  }
}

void PendulumChain::constraint(ConstVectorRef q, double, VectorRef phi) const {
  for (int k = 0; k < links(); ++k) {
    const Eigen::Vector3d d = k == 0 ? Eigen::Vector3d(q.segment<3>(0) - params_.pivot)
                                     : Eigen::Vector3d(q.segment<3>(3 * k) - q.segment<3>(3 * k - 3));
    phi[k] = 0.5 * (d.dot(d) - params_.lengths[k] * params_.lengths[k]);
  }
}

namespace {

/// J = 0 in one pass when J is contiguous (J.setZero() through a MatrixRef clears column by
/// column, one memset call each).
void zeroJacobian(MatrixRef J) {
  if (J.outerStride() == J.rows()) {
    std::fill_n(J.data(), J.size(), 0.0);
  } else {
    J.setZero();
  }
}

}  // namespace

void PendulumChain::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  // Zeros in one pass, then column by column (J is column-major) the two non-zeros: column c of
  // particle p holds d_p[c] in row p and −d_{p+1}[c] in row p + 1. The values are those of 1×3
  // block assignments; for the double pendulum this costs a fraction of them.
  zeroJacobian(J);
  const int n = links();
  Eigen::Vector3d d = q.segment<3>(0) - params_.pivot;  // d_p
  for (int p = 0; p < n; ++p) {
    const bool has_next = p + 1 < n;
    const Eigen::Vector3d d_next =
        has_next ? Eigen::Vector3d(q.segment<3>(3 * p + 3) - q.segment<3>(3 * p)) : Eigen::Vector3d::Zero();
    for (int c = 0; c < 3; ++c) {
      double* column = J.data() + (3 * p + c) * J.outerStride();
      column[p] = d[c];
      if (has_next) column[p + 1] = -d_next[c];
    }
    d = d_next;
  }
}

void PendulumChain::constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const {
  // Row by row, columns ascending: the order of J's compressed storage, so the sparse path lets
  // constraintJacobianValues() write that storage in place instead of copying it there.
  int entry = 0;
  for (int k = 0; k < links(); ++k) {
    if (k > 0) {
      for (int axis = 0; axis < 3; ++axis, ++entry) {  // −dᵀ on mass k − 1
        rows[entry] = k;
        cols[entry] = 3 * k - 3 + axis;
      }
    }
    for (int axis = 0; axis < 3; ++axis, ++entry) {  // +dᵀ on mass k
      rows[entry] = k;
      cols[entry] = 3 * k + axis;
    }
  }
}

void PendulumChain::constraintJacobianValues(ConstVectorRef q, double, VectorRef values) const {
  values.head<3>() = q.segment<3>(0) - params_.pivot;
  for (int k = 1; k < links(); ++k) {
    const Eigen::Vector3d d = q.segment<3>(3 * k) - q.segment<3>(3 * k - 3);
    values.segment<3>(6 * k - 3) = -d;
    values.segment<3>(6 * k) = d;
  }
}

void PendulumChain::constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const {
  for (int k = 0; k < links(); ++k) {
    const Eigen::Vector3d dv = k == 0 ? Eigen::Vector3d(v.segment<3>(0))
                                      : Eigen::Vector3d(v.segment<3>(3 * k) - v.segment<3>(3 * k - 3));
    gamma[k] = dv.dot(dv);
  }
}

namespace {

/// The pass of PendulumChain::evaluateTerms() over the links: h, φ, γ, ∂φ/∂t and, with
/// kJacobianValues, J's sparse values (constraintJacobianValues()'s layout: d₀, then −d_k, d_k per
/// link, contiguous, so they share the pass and its d_k).
template <bool kJacobianValues>
void chainTermsPass(int n, const double* x, const double* w, const double* masses, const double* lengths,
                    double gravity, const double* pivot, double* h, double* phi, double* gamma, double* phi_t,
                    double* values) {
  const double* previous = pivot;  // particle k − 1's position (the pivot for k = 0)
  const double at_rest[3] = {0.0, 0.0, 0.0};
  const double* previous_velocity = at_rest;
  for (int k = 0; k < n; ++k) {
    const double* p = x + 3 * k;
    const double* u = w + 3 * k;
    const double dx = p[0] - previous[0], dy = p[1] - previous[1], dz = p[2] - previous[2];
    const double dvx = u[0] - previous_velocity[0], dvy = u[1] - previous_velocity[1], dvz = u[2] - previous_velocity[2];
    h[3 * k] = 0.0;
    h[3 * k + 1] = -(masses[k] * -gravity);
    h[3 * k + 2] = 0.0;
    phi[k] = 0.5 * ((dx * dx + dy * dy + dz * dz) - lengths[k] * lengths[k]);
    gamma[k] = dvx * dvx + dvy * dvy + dvz * dvz;
    phi_t[k] = 0.0;
    if constexpr (kJacobianValues) {
      double* row = k == 0 ? values : values + 6 * k - 3;
      if (k > 0) {
        row[0] = -dx;
        row[1] = -dy;
        row[2] = -dz;
        row += 3;
      }
      row[0] = dx;
      row[1] = dy;
      row[2] = dz;
    }
    previous = p;
    previous_velocity = u;
  }
}

}  // namespace

void PendulumChain::evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const {
  // One pass over the links for h, φ, γ and ∂φ/∂t with the per-term methods' operations in
  // their order (|d|² summed x, y, z as Eigen's dot of a Vector3d does; ḋ₀ = v₀ − 0 is v₀
  // exactly), so the bits are theirs. Raw pointers, so that the stores cannot alias the views or
  // the parameters and the loop keeps its values in registers; no branch inside it. The sparse
  // path's J values join the pass (contiguous stores); a dense J is filled by the per-term
  // method afterwards, a direct call in this final class (measured: its strided writes inside
  // the same loop cost more than the second pass over d_k).
  const bool sparse_values_only = out.J.size() == 0 && out.jacobian_values.size() > 0;
  const double* const x = q.data();
  const double* const w = v.data();
  if (sparse_values_only) {
    chainTermsPass<true>(links(), x, w, params_.masses.data(), params_.lengths.data(), params_.gravity,
                         params_.pivot.data(), out.h.data(), out.phi.data(), out.gamma.data(), out.phi_t.data(),
                         out.jacobian_values.data());
    return;
  }
  chainTermsPass<false>(links(), x, w, params_.masses.data(), params_.lengths.data(), params_.gravity,
                        params_.pivot.data(), out.h.data(), out.phi.data(), out.gamma.data(), out.phi_t.data(),
                        nullptr);
  if (out.J.size() > 0) constraintJacobian(q, t, out.J);
  if (out.jacobian_values.size() > 0) constraintJacobianValues(q, t, out.jacobian_values);
}

double PendulumChain::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  double twice = 0.0;
  for (int k = 0; k < links(); ++k) {
    for (int c = 0; c < 3; ++c) twice += params_.masses[k] * v[3 * k + c] * v[3 * k + c];
  }
  return 0.5 * twice;
}

double PendulumChain::potentialEnergy(ConstVectorRef q, double) const {
  double sum = 0.0;
  for (int k = 0; k < links(); ++k) sum += params_.masses[k] * (q[3 * k + 1] * -params_.gravity);
  return -sum;
}

State PendulumChain::initialState(double tilt) const {
  requireFinite("tilt", Eigen::Matrix<double, 1, 1>::Constant(tilt));
  const Eigen::Vector3d direction(std::cos(-tilt), std::sin(-tilt), 0.0);
  State state;
  state.q.resize(nq());
  state.v = Vector::Zero(nq());
  double reach = 0.0;
  for (int k = 0; k < links(); ++k) {
    reach += params_.lengths[k];
    state.q.segment<3>(3 * k) = params_.pivot + reach * direction;
  }
  return state;
}

double PendulumChain::linkLengthViolation(ConstVectorRef q) const {
  double worst = 0.0;
  for (int k = 0; k < links(); ++k) {
    const Eigen::Vector3d d = k == 0 ? Eigen::Vector3d(q.segment<3>(0) - params_.pivot)
                                     : Eigen::Vector3d(q.segment<3>(3 * k) - q.segment<3>(3 * k - 3));
    worst = std::max(worst, std::abs(std::sqrt(d.dot(d)) - params_.lengths[k]));
  }
  return worst;
}

double PendulumChain::energyScale() const {
  const double total_mass = std::accumulate(params_.masses.begin(), params_.masses.end(), 0.0);
  const double total_length = std::accumulate(params_.lengths.begin(), params_.lengths.end(), 0.0);
  return total_mass * params_.gravity * total_length;
}

Eigen::Vector3d PendulumChain::tip(ConstVectorRef q) const { return q.segment<3>(3 * links() - 3); }

std::string PendulumChain::parameterName(int i) const {
  if (i >= 0 && i < links()) return "masses[" + std::to_string(i) + "]";
  if (i == links()) return "gravity";
  if (i > links() && i < np()) return "lengths[" + std::to_string(i - links() - 1) + "]";
  throwInvalid("parameter index", std::to_string(i) + " is not in [0, " + std::to_string(np()) + ") for " + name());
}

Vector PendulumChain::parameterValues() const {
  const int n = links();
  Vector p(np());
  for (int k = 0; k < n; ++k) {
    p[k] = params_.masses[static_cast<std::size_t>(k)];
    p[n + 1 + k] = params_.lengths[static_cast<std::size_t>(k)];
  }
  p[n] = params_.gravity;
  return p;
}

std::unique_ptr<ParametricSystem> PendulumChain::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), np());
  const int n = links();
  PendulumChainParams changed = params_;
  for (int k = 0; k < n; ++k) {
    changed.masses[static_cast<std::size_t>(k)] = p[k];
    changed.lengths[static_cast<std::size_t>(k)] = p[n + 1 + k];
  }
  changed.gravity = p[n];
  return std::make_unique<PendulumChain>(std::move(changed));
}

void PendulumChain::constraintParameterJacobian(ConstVectorRef, double, MatrixRef P) const {
  P.setZero();
  for (int k = 0; k < links(); ++k) P(k, links() + 1 + k) = -params_.lengths[static_cast<std::size_t>(k)];
}

void PendulumChain::constraintParameterTangent(ConstVectorRef, ConstVectorRef, double, int parameter,
                                               ConstraintParameterTangent& out) const {
  if (parameter < 0 || parameter >= np()) parameterName(parameter);  // throws naming the index
  out.J.setZero();
  out.gamma.setZero();
  out.phi_t.setZero();
}

void PendulumChain::dynamicsParameterJacobian(ConstVectorRef, ConstVectorRef, ConstVectorRef a, double,
                                              MatrixRef D) const {
  D.setZero();
  for (int k = 0; k < links(); ++k) {
    D.block<3, 1>(3 * k, k) = a.segment<3>(3 * k);
    D(3 * k + 1, k) += params_.gravity;
    D(3 * k + 1, links()) = params_.masses[static_cast<std::size_t>(k)];
  }  // the lengths' columns stay zero: L enters φ alone
}

void PendulumChain::termsTangent(ConstVectorRef, ConstVectorRef v, double, ConstVectorRef dq, ConstVectorRef dv,
                                 ModelTermsTangent& out) const {
  out.M.setZero();
  out.h.setZero();
  out.phi_t.setZero();
  out.J.setZero();
  for (int k = 0; k < links(); ++k) {
    const Eigen::Vector3d dd = k == 0 ? Eigen::Vector3d(dq.segment<3>(0))
                                      : Eigen::Vector3d(dq.segment<3>(3 * k) - dq.segment<3>(3 * k - 3));
    const Eigen::Vector3d rate = k == 0 ? Eigen::Vector3d(v.segment<3>(0))
                                        : Eigen::Vector3d(v.segment<3>(3 * k) - v.segment<3>(3 * k - 3));
    const Eigen::Vector3d d_rate = k == 0 ? Eigen::Vector3d(dv.segment<3>(0))
                                          : Eigen::Vector3d(dv.segment<3>(3 * k) - dv.segment<3>(3 * k - 3));
    out.J.block<1, 3>(k, 3 * k) = dd.transpose();
    if (k > 0) out.J.block<1, 3>(k, 3 * k - 3) = -dd.transpose();
    out.gamma[k] = 2.0 * rate.dot(d_rate);
  }
}

}  // namespace kktdae
