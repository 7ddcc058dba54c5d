#pragma once
// numpy ⇄ Eigen at the boundary, with the checks the C++ API leaves to assertions in Release:
// every array that enters is checked for a real dtype and the expected shape, and the error names
// the function and the argument ("PendulumChain.bias: v must have shape (6,), got (5,)").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "kktdae/core/types.hpp"

namespace kktdae::python {
namespace py = pybind11;

/// A C-ordered float64 array converted from `value` (any real numeric array or sequence). Throws
/// TypeError naming `where` and `name` for a non-numeric or complex dtype.
py::array_t<double, py::array::c_style | py::array::forcecast> realArray(py::handle value, const std::string& where,
                                                                       const char* name);

/// A vector with `size` entries (any size when size < 0). Throws ValueError for another shape.
Vector toVector(py::handle value, Eigen::Index size, const std::string& where, const char* name);
/// Writes `value` into out (whose size is the expected one) without allocating an Eigen vector.
void copyInto(py::handle value, VectorRef out, const std::string& where, const char* name);
/// A rows×cols matrix (row-major input). Throws ValueError for another shape.
Matrix toMatrix(py::handle value, Eigen::Index rows, Eigen::Index cols, const std::string& where, const char* name);
/// Writes a rows×cols `value` into out (col-major Eigen).
void copyInto(py::handle value, MatrixRef out, const std::string& where, const char* name);
/// The per-call fast path of the trampoline: copies `value` into out when it already is a C-ordered
/// float64 ndarray of out's shape and returns true; returns false, writing nothing, for anything
/// else (the caller then goes through copyInto(), which converts or names the problem).
bool tryFastCopy(py::handle value, VectorRef out);
bool tryFastCopy(py::handle value, MatrixRef out);
/// A 3-vector (points, directions, forces).
Eigen::Vector3d toVector3(py::handle value, const std::string& where, const char* name);
/// A real number; TypeError naming the argument otherwise.
double toDouble(py::handle value, const std::string& where, const char* name);

/// Copies into a new float64 numpy array: (n,) and (rows, cols) C-ordered.
py::array_t<double> vectorToNumpy(const Eigen::Ref<const Vector>& vector);
py::array_t<double> matrixToNumpy(const Eigen::Ref<const Matrix>& matrix);
/// Either of the two, by the argument's compile-time shape (a vector or a matrix).
template <typename Derived>
py::array_t<double> toNumpy(const Eigen::MatrixBase<Derived>& x) {
  if constexpr (Derived::ColsAtCompileTime == 1) {
    return vectorToNumpy(x);
  } else {
    return matrixToNumpy(x);
  }
}
/// The same, marked read-only (for getters whose writes would otherwise be lost silently).
py::array_t<double> readOnly(py::array_t<double> array);
/// Moves `data` into a numpy array of the given shape without copying (the vector's buffer is
/// owned by the array from then on).
py::array_t<double> adopt(std::vector<double>&& data, std::vector<py::ssize_t> shape);

/// "(5,)" or "(2, 3)": numpy's way of printing a shape.
std::string shapeText(const py::array& array);

}  // namespace kktdae::python
