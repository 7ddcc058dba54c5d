# The asan preset turns this on: AddressSanitizer (with LeakSanitizer) and UBSan for every
# target of the project, so leaks and undefined behaviour in tests fail the run.
if(KKTDAE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
