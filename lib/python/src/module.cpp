// The extension module kktdae._kktdae; the package kktdae (kktdae/__init__.py) re-exports it.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_kktdae, m) {
  m.doc() = "kktdae: constrained Lagrangian dynamics around the KKT system (C++ library bindings).";
  using namespace kktdae::python;
  // Dependencies first: a binding that names a type in its signature needs that type bound.
  bindCore(m);
  bindIntegrators(m);
  bindStabilization(m);
  bindKkt(m);
  bindSystem(m);
  bindParametricSystem(m);
  bindModelCheck(m);
  bindModels(m);
  bindMultibody(m);
  bindEvents(m);
  bindSimulate(m);
  bindSweep(m);
  bindContact(m);
  bindSimulator(m);
  bindExperiments(m);
  bindSensitivity(m);
}
