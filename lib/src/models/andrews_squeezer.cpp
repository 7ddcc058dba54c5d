#include "kktdae/models/andrews_squeezer.hpp"

#include <cmath>
#include <utility>

#include <Eigen/Core>

#include "kktdae/core/checks.hpp"

namespace kktdae {

namespace {

/// The spring's attachment D on body 3 and its offset from the anchor C.
struct SpringGeometry {
  double dx = 0.0, dy = 0.0;  ///< D − C [m]
  double length = 0.0;        ///< ℓ = |D − C| [m]
  double dxd_dgamma = 0.0, dyd_dgamma = 0.0;  ///< ∂D/∂γ [m]
};

SpringGeometry springGeometry(const AndrewsSqueezerParams& p, double gamma) {
  const double s = std::sin(gamma), c = std::cos(gamma);
  SpringGeometry g;
  g.dx = p.sd * c + p.sc * s + p.xb - p.xc;
  g.dy = p.sd * s - p.sc * c + p.yb - p.yc;
  g.length = std::sqrt(g.dx * g.dx + g.dy * g.dy);
  g.dxd_dgamma = p.sc * c - p.sd * s;
  g.dyd_dgamma = p.sd * c + p.sc * s;
  return g;
}

void fillMass(const AndrewsSqueezerParams& p, const double* q, Eigen::Ref<Eigen::MatrixXd> M) {
  const double cos_theta = std::cos(q[1]), sin_phi = std::sin(q[3]), sin_omega = std::sin(q[5]);
  const double e_ea = p.e - p.ea, zf_fa = p.zf - p.fa;
  M.setZero();
  M(0, 0) = p.m1 * p.ra * p.ra + p.m2 * (p.rr * p.rr - 2.0 * p.da * p.rr * cos_theta + p.da * p.da) + p.i1 + p.i2;
  M(1, 0) = M(0, 1) = p.m2 * (p.da * p.da - p.da * p.rr * cos_theta) + p.i2;
  M(1, 1) = p.m2 * p.da * p.da + p.i2;
  M(2, 2) = p.m3 * (p.sa * p.sa + p.sb * p.sb) + p.i3;
  M(3, 3) = p.m4 * e_ea * e_ea + p.i4;
  M(4, 3) = M(3, 4) = p.m4 * (e_ea * e_ea + p.zt * e_ea * sin_phi) + p.i4;
  M(4, 4) = p.m4 * (p.zt * p.zt + 2.0 * p.zt * e_ea * sin_phi + e_ea * e_ea) + p.m5 * (p.ta * p.ta + p.tb * p.tb) +
            p.i4 + p.i5;
  M(5, 5) = p.m6 * zf_fa * zf_fa + p.i6;
  M(6, 5) = M(5, 6) = p.m6 * (zf_fa * zf_fa - p.u * zf_fa * sin_omega) + p.i6;
  M(6, 6) = p.m6 * (zf_fa * zf_fa - 2.0 * p.u * zf_fa * sin_omega + p.u * p.u) + p.m7 * (p.ua * p.ua + p.ub * p.ub) +
            p.i6 + p.i7;
}

}  // namespace

void AndrewsSqueezerParams::validate() const {
  const std::pair<const char*, double> positive[] = {
      {"m1", m1}, {"m2", m2}, {"m3", m3}, {"m4", m4}, {"m5", m5}, {"m6", m6}, {"m7", m7}, {"c0", c0},
      {"i1", i1}, {"i2", i2}, {"i3", i3}, {"i4", i4}, {"i5", i5}, {"i6", i6}, {"i7", i7}, {"d", d},
      {"da", da}, {"e", e},   {"ea", ea}, {"rr", rr}, {"ra", ra}, {"l0", l0}, {"ss", ss}, {"sa", sa},
      {"sb", sb}, {"sc", sc}, {"sd", sd}, {"ta", ta}, {"tb", tb}, {"u", u},   {"ua", ua}, {"ub", ub},
      {"zf", zf}, {"zt", zt}, {"fa", fa}};
  for (const auto& [name, value] : positive) requirePositive(name, value);
  const std::pair<const char*, double> finite[] = {{"xa", xa}, {"ya", ya}, {"xb", xb}, {"yb", yb},
                                                   {"xc", xc}, {"yc", yc}, {"mom", mom}};
  for (const auto& [name, value] : finite) {
    if (!std::isfinite(value)) throwInvalid(name, "must be finite, got " + formatDouble(value));
  }
}

AndrewsSqueezer::AndrewsSqueezer(AndrewsSqueezerParams params) : params_(params) { params_.validate(); }

void AndrewsSqueezer::massMatrix(ConstVectorRef q, MatrixRef M) const { fillMass(params_, q.data(), M); }

void AndrewsSqueezer::bias(ConstVectorRef q, ConstVectorRef v, double, VectorRef h) const {
  const AndrewsSqueezerParams& p = params_;
  const double beta_dot = v[0], theta_dot = v[1], phi_dot = v[3], delta_dot = v[4], omega_dot = v[5],
               eps_dot = v[6];
  const double crank = p.m2 * p.da * p.rr * std::sin(q[1]);     // ∂M₁₁/∂Θ / 2 = ∂M₂₁/∂Θ
  const double rocker = p.m4 * p.zt * (p.e - p.ea) * std::cos(q[3]);  // ∂M₅₄/∂Φ
  const double arm = p.m6 * p.u * (p.zf - p.fa) * std::cos(q[5]);     // −∂M₇₆/∂Ω
  const SpringGeometry spring = springGeometry(p, q[2]);
  // f₃ of the Test Set: the spring force −c0 (ℓ − l0) along (D − C)/ℓ, times ∂D/∂γ.
  const double tension = p.c0 * (spring.length - p.l0) / spring.length;
  h[0] = -p.mom + crank * theta_dot * (theta_dot + 2.0 * beta_dot);
  h[1] = -crank * beta_dot * beta_dot;
  h[2] = tension * (spring.dx * spring.dxd_dgamma + spring.dy * spring.dyd_dgamma);
  h[3] = -rocker * delta_dot * delta_dot;
  h[4] = rocker * phi_dot * (phi_dot + 2.0 * delta_dot);
  h[5] = arm * eps_dot * eps_dot;
  h[6] = -arm * omega_dot * (omega_dot + 2.0 * eps_dot);
}

void AndrewsSqueezer::constraint(ConstVectorRef q, double, VectorRef phi) const {
  const AndrewsSqueezerParams& p = params_;
  const double beta = q[0], beta_theta = q[0] + q[1], gamma = q[2], phi_delta = q[3] + q[4], delta = q[4],
               omega_eps = q[5] + q[6], eps = q[6];
  // The crank pin, shared by the three loops.
  const double x = p.rr * std::cos(beta) - p.d * std::cos(beta_theta);
  const double y = p.rr * std::sin(beta) - p.d * std::sin(beta_theta);
  phi[0] = x - p.ss * std::sin(gamma) - p.xb;
  phi[1] = y + p.ss * std::cos(gamma) - p.yb;
  phi[2] = x - p.e * std::sin(phi_delta) - p.zt * std::cos(delta) - p.xa;
  phi[3] = y + p.e * std::cos(phi_delta) - p.zt * std::sin(delta) - p.ya;
  phi[4] = x - p.zf * std::cos(omega_eps) - p.u * std::sin(eps) - p.xa;
  phi[5] = y - p.zf * std::sin(omega_eps) + p.u * std::cos(eps) - p.ya;
}

void AndrewsSqueezer::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  const AndrewsSqueezerParams& p = params_;
  const double beta_theta = q[0] + q[1], phi_delta = q[3] + q[4], omega_eps = q[5] + q[6];
  const double dx_dbeta = -p.rr * std::sin(q[0]) + p.d * std::sin(beta_theta);
  const double dx_dtheta = p.d * std::sin(beta_theta);
  const double dy_dbeta = p.rr * std::cos(q[0]) - p.d * std::cos(beta_theta);
  const double dy_dtheta = -p.d * std::cos(beta_theta);
  J.setZero();
  for (int loop = 0; loop < 3; ++loop) {
    J(2 * loop, 0) = dx_dbeta;
    J(2 * loop, 1) = dx_dtheta;
    J(2 * loop + 1, 0) = dy_dbeta;
    J(2 * loop + 1, 1) = dy_dtheta;
  }
  J(0, 2) = -p.ss * std::cos(q[2]);
  J(1, 2) = -p.ss * std::sin(q[2]);
  J(2, 3) = -p.e * std::cos(phi_delta);
  J(2, 4) = -p.e * std::cos(phi_delta) + p.zt * std::sin(q[4]);
  J(3, 3) = -p.e * std::sin(phi_delta);
  J(3, 4) = -p.e * std::sin(phi_delta) - p.zt * std::cos(q[4]);
  J(4, 5) = p.zf * std::sin(omega_eps);
  J(4, 6) = p.zf * std::sin(omega_eps) - p.u * std::cos(q[6]);
  J(5, 5) = -p.zf * std::cos(omega_eps);
  J(5, 6) = -p.zf * std::cos(omega_eps) - p.u * std::sin(q[6]);
}

void AndrewsSqueezer::constraintBias(ConstVectorRef q, ConstVectorRef v, double, VectorRef gamma) const {
  const AndrewsSqueezerParams& p = params_;
  const double beta_theta = q[0] + q[1], phi_delta = q[3] + q[4], omega_eps = q[5] + q[6];
  const double w_beta = v[0] * v[0], w_bt = (v[0] + v[1]) * (v[0] + v[1]), w_gamma = v[2] * v[2],
               w_pd = (v[3] + v[4]) * (v[3] + v[4]), w_delta = v[4] * v[4], w_oe = (v[5] + v[6]) * (v[5] + v[6]),
               w_eps = v[6] * v[6];
  // Every term of φ is a length times cos or sin of a sum of angles: its second time derivative at
  // q̈ = 0 is minus the same term times the squared angular rate of that sum.
  const double x = -p.rr * std::cos(q[0]) * w_beta + p.d * std::cos(beta_theta) * w_bt;
  const double y = -p.rr * std::sin(q[0]) * w_beta + p.d * std::sin(beta_theta) * w_bt;
  gamma[0] = x + p.ss * std::sin(q[2]) * w_gamma;
  gamma[1] = y - p.ss * std::cos(q[2]) * w_gamma;
  gamma[2] = x + p.e * std::sin(phi_delta) * w_pd + p.zt * std::cos(q[4]) * w_delta;
  gamma[3] = y - p.e * std::cos(phi_delta) * w_pd + p.zt * std::sin(q[4]) * w_delta;
  gamma[4] = x + p.zf * std::cos(omega_eps) * w_oe + p.u * std::sin(q[6]) * w_eps;
  gamma[5] = y + p.zf * std::sin(omega_eps) * w_oe - p.u * std::cos(q[6]) * w_eps;
}

double AndrewsSqueezer::kineticEnergy(ConstVectorRef q, ConstVectorRef v) const {
  Eigen::Matrix<double, 7, 7> M;
  fillMass(params_, q.data(), M);
  return 0.5 * v.dot(M * v);
}

double AndrewsSqueezer::potentialEnergy(ConstVectorRef q, double) const {
  const SpringGeometry spring = springGeometry(params_, q[2]);
  const double stretch = spring.length - params_.l0;
  return 0.5 * params_.c0 * stretch * stretch - params_.mom * q[0];
}

ConsistentStart andrewsSqueezerStart() {
  ConsistentStart start;
  start.state.t = 0.0;
  start.state.q.resize(7);
  // The Test Set's yini (R/ex_andrews.R), given there to 30 digits.
  start.state.q << -0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530, -0.222668390165885884674473185609,
      1.23054744454982119249735015568;
  start.state.v = Vector::Zero(7);
  start.qdd = Vector::Zero(7);
  start.qdd[0] = 14222.4439199541138705911625887;
  start.qdd[1] = -10666.8329399655854029433719415;
  start.lambda = Vector::Zero(6);
  start.lambda[0] = -98.5668703962410896057654982170;  // λ = −λ_TS
  start.lambda[1] = 6.12268834425566265503114393122;
  return start;
}

ReferenceSolution andrewsSqueezerReference() {
  ReferenceSolution ref;
  ref.source = "IVP Test Set, andrews: PSIDE at rtol = atol = 1e-14 (Cray C90 double precision), "
               "src/Ex_andrews.f andsoln";
  ref.t_end = 0.03;
  ref.q.resize(7);
  ref.q << 0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1, -0.5347301163226948e+0,
      0.5244099658805304e+0, 0.5347301163226948e+0, 0.1048080741042263e+1;
  ref.v.resize(7);
  ref.v << 0.1139920302151208e+4, -0.1424379294994111e+4, 0.1103291221937134e+2, 0.1929337464421385e+2,
      0.5735699284790808e+0, -0.1929337464421385e+2, 0.3231791658026955e+0;
  ref.lambda.resize(6);
  // The Test Set's y(22..27) are λ_TS; ours are their negatives.
  ref.lambda << -0.1991753333731910e+3, 0.2975531228015052e+2, -0.2306654119098399e+2, -0.3145271365475927e+2,
      -0.2264249232082739e+2, -0.1161740700019673e+2;
  ref.lambda_to_source = -1.0;
  ref.scored_components = 7;
  // The Test Set's report for andrews (scd on the 7 angles at rtol = atol); DASSL has none
  // (index 3). Only RADAU5's 1e-7 run comes with its counts here.
  ref.published = {{"RADAU5", 1e-4, 1.36}, {"RADAU5", 1e-7, 4.46, 117, 1321}, {"PSIDE", 1e-4, 2.95},
                   {"PSIDE", 1e-7, 4.98},  {"GAMD", 1e-4, 2.82},               {"GAMD", 1e-7, 5.02},
                   {"MEBDFI", 1e-4, 0.37}, {"MEBDFI", 1e-7, 3.50}};
  return ref;
}

}  // namespace kktdae
