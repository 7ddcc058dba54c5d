#pragma once
/// @file
/// Eigen's configuration every translation unit that uses kktdae must share (the ABI of the
/// Eigen objects that cross the library boundary). The kktdae::kktdae CMake target defines it;
/// this header refuses to compile where it is missing or different.

#include <Eigen/Core>
#include <cstddef>

// Why these values: cmake/KktdaeEigenAbi.cmake. Without them, an object the library allocated
// (a State, a KktWorkspace) and the user's code frees is released the wrong way as soon as the
// two sides are compiled for different instruction sets (-march=native, -mavx2).
static_assert(EIGEN_MAX_ALIGN_BYTES == 16,
              "kktdae: compile with -DEIGEN_MAX_ALIGN_BYTES=16 -DEIGEN_MALLOC_ALREADY_ALIGNED=0 "
              "(linking the CMake target kktdae::kktdae sets both); do not define EIGEN_DONT_ALIGN");
static_assert(EIGEN_MALLOC_ALREADY_ALIGNED == 0,
              "kktdae: compile with -DEIGEN_MAX_ALIGN_BYTES=16 -DEIGEN_MALLOC_ALREADY_ALIGNED=0 "
              "(linking the CMake target kktdae::kktdae sets both)");
static_assert(sizeof(Eigen::Index) == sizeof(std::ptrdiff_t),
              "kktdae: do not change EIGEN_DEFAULT_DENSE_INDEX_TYPE: the library uses Eigen's default");
