#include "arrays.hpp"

#include "python_errors.hpp"

#include <cstring>

namespace kktdae::python {

std::string shapeText(const py::array& array) {
  std::string text = "(";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(array.shape(i));
  }
  return text + (array.ndim() == 1 ? ",)" : ")");
}

py::array_t<double, py::array::c_style | py::array::forcecast> realArray(py::handle value, const std::string& where,
                                                                       const char* name) {
  if (value.is_none()) throw py::type_error(where + ": " + name + " must be a float array, got None");
  // numpy.asarray rather than pybind11's array::ensure(), which clears Python's error indicator on
  // failure: a Ctrl-C that numpy's conversion (of a list, say) turned into KeyboardInterrupt was
  // then reported as "must be a float array" and the run ended MODEL_ERROR instead of raising it.
  py::array array;
  if (py::isinstance<py::array>(value)) {
    array = py::reinterpret_borrow<py::array>(value);
  } else {
    try {
      array = py::module_::import("numpy").attr("asarray")(value);
    } catch (const py::error_already_set& error) {
      if (mustPropagate(error.value())) throw;
    }
  }
  if (!array) {
    throw py::type_error(where + ": " + name + " must be a float array, got " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(where + ": " + name + " must have a real dtype (float64), got " +
                         std::string(py::str(array.dtype())));
  }
  // Already float64 and C-contiguous (the usual case): ensure() below converts nothing. Otherwise
  // numpy converts here, where what it raises goes on.
  if (!py::isinstance<py::array_t<double, py::array::c_style>>(array)) {
    array = py::module_::import("numpy").attr("ascontiguousarray")(array, "float64");
  }
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(array);
}

namespace {

[[noreturn]] void wrongShape(const py::array& array, const std::string& where, const char* name,
                             const std::string& expected) {
  throw py::value_error(where + ": " + name + " must have shape " + expected + ", got " + shapeText(array));
}

std::string vectorShape(Eigen::Index size) { return "(" + std::to_string(size) + ",)"; }
std::string matrixShape(Eigen::Index rows, Eigen::Index cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

/// Checks a 1-D array of `size` entries (any when size < 0) and returns it.
py::array_t<double, py::array::c_style | py::array::forcecast> checkedVector(py::handle value, Eigen::Index size,
                                                                           const std::string& where, const char* name) {
  auto array = realArray(value, where, name);
  if (array.ndim() != 1 || (size >= 0 && array.shape(0) != size)) {
    wrongShape(array, where, name, size >= 0 ? vectorShape(size) : "(n,)");
  }
  return array;
}

auto checkedMatrix(py::handle value, Eigen::Index rows, Eigen::Index cols, const std::string& where,
                   const char* name) {
  auto array = realArray(value, where, name);
  // A 1×n or n×1 expectation also accepts the flat (n,) array a Python author naturally returns.
  const bool flat_ok = array.ndim() == 1 && (rows == 1 || cols == 1) && array.shape(0) == rows * cols;
  if (!flat_ok && (array.ndim() != 2 || array.shape(0) != rows || array.shape(1) != cols)) {
    wrongShape(array, where, name, matrixShape(rows, cols));
  }
  return array;
}

}  // namespace

Vector toVector(py::handle value, Eigen::Index size, const std::string& where, const char* name) {
  auto array = checkedVector(value, size, where, name);
  return Eigen::Map<const Vector>(array.data(), array.shape(0));
}

void copyInto(py::handle value, VectorRef out, const std::string& where, const char* name) {
  auto array = checkedVector(value, out.size(), where, name);
  out = Eigen::Map<const Vector>(array.data(), out.size());
}

Matrix toMatrix(py::handle value, Eigen::Index rows, Eigen::Index cols, const std::string& where, const char* name) {
  auto array = checkedMatrix(value, rows, cols, where, name);
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(array.data(), rows, cols);
}

void copyInto(py::handle value, MatrixRef out, const std::string& where, const char* name) {
  auto array = checkedMatrix(value, out.rows(), out.cols(), where, name);
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  out = Eigen::Map<const RowMajor>(array.data(), out.rows(), out.cols());
}

bool tryFastCopy(py::handle value, VectorRef out) {
  using Exact = py::array_t<double, py::array::c_style>;
  if (!Exact::check_(value)) return false;
  const auto array = py::reinterpret_borrow<Exact>(value);
  if (array.ndim() != 1 || array.shape(0) != out.size()) return false;
  out = Eigen::Map<const Vector>(array.data(), out.size());
  return true;
}

bool tryFastCopy(py::handle value, MatrixRef out) {
  using Exact = py::array_t<double, py::array::c_style>;
  if (!Exact::check_(value)) return false;
  const auto array = py::reinterpret_borrow<Exact>(value);
  if (array.ndim() != 2 || array.shape(0) != out.rows() || array.shape(1) != out.cols()) return false;
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  out = Eigen::Map<const RowMajor>(array.data(), out.rows(), out.cols());
  return true;
}

Eigen::Vector3d toVector3(py::handle value, const std::string& where, const char* name) {
  return toVector(value, 3, where, name);
}

double toDouble(py::handle value, const std::string& where, const char* name) {
  if (!py::isinstance<py::float_>(value) && !py::isinstance<py::int_>(value) &&
      !py::hasattr(value, "__float__")) {
    throw py::type_error(where + ": " + name + " must be a real number, got " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  return py::cast<double>(value);
}

py::array_t<double> vectorToNumpy(const Eigen::Ref<const Vector>& vector) {
  py::array_t<double> array(vector.size());
  if (vector.size() > 0) std::memcpy(array.mutable_data(), vector.data(), sizeof(double) * vector.size());
  return array;
}

py::array_t<double> matrixToNumpy(const Eigen::Ref<const Matrix>& matrix) {
  py::array_t<double> array({matrix.rows(), matrix.cols()});
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<RowMajor>(array.mutable_data(), matrix.rows(), matrix.cols()) = matrix;
  return array;
}

py::array_t<double> readOnly(py::array_t<double> array) {
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

py::array_t<double> adopt(std::vector<double>&& data, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<double>(std::move(data));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(shape, owned->data(), owner);
}

}  // namespace kktdae::python
