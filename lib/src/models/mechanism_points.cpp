#include "kktdae/models/mechanism_points.hpp"

namespace kktdae {

State mechanismTwinState(double t, const MechanismPoints<double>& positions,
                         const MechanismPoints<double>& velocities) {
  State twin;
  twin.t = t;
  twin.q.resize(6);
  twin.v.resize(6);
  twin.q << positions.b, positions.c, positions.p;
  twin.v << velocities.b, velocities.c, velocities.p;
  return twin;
}

}  // namespace kktdae
