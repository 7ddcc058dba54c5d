# The asan preset turns this on: AddressSanitizer (with LeakSanitizer) and UBSan for every
# target of the project, so leaks and undefined behaviour in tests fail the run.
if(KKTDAE_SANITIZE)
  # GCC 12's -Wmaybe-uninitialized misfires on libstdc++'s <regex> (pulled in by Catch2) once the
  # sanitizer instrumentation is inlined; the release build keeps the warning.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
                      -Wno-maybe-uninitialized)
  add_link_options(-fsanitize=address,undefined)
endif()
