# Warnings as the project builds them: strict, but never -Werror for users who build with
# another compiler. No -ffast-math and no -march=native: both change the last bits of results
# that the seed comparisons and the byte-for-byte smoke runs depend on.
function(kktdae_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion-null>)
endfunction()
