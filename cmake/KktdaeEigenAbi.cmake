# Pins how Eigen allocates and aligns, for the library and for everyone who links it.
#
# Eigen derives its alignment from the instruction set a translation unit is compiled for: 16
# bytes for SSE2, 32 for AVX, 64 for AVX-512. With 32 or 64, Eigen 3.4 allocates through its own
# aligned malloc (the original pointer stored in front of the block) instead of plain malloc. A
# library built for SSE2 and a user built with -march=native then disagree on how a Vector's
# memory was obtained: a State or KktWorkspace the library filled and the user destroys is freed
# the wrong way (issue 15: a segfault in ~State). Pinning both macros on the PUBLIC side makes every
# translation unit agree whatever its flags: at most 16-byte alignment is assumed (AVX code still
# vectorizes, with unaligned loads), and every block is allocated the same self-describing way, so
# either side may free or resize what the other allocated. kktdae/core/eigen_abi.hpp checks the
# values at compile time, for users who compile without the CMake target.
function(kktdae_pin_eigen_abi target)
  target_compile_definitions(${target} PUBLIC EIGEN_MAX_ALIGN_BYTES=16 EIGEN_MALLOC_ALREADY_ALIGNED=0)
endfunction()
