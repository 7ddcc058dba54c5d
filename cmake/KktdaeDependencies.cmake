# Every dependency comes from a Debian 12 package through find_package; nothing is fetched.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(spdlog REQUIRED)
# SUNDIALS 6.4: CVODE and IDA for the adaptive integrators, KLU for large sparse DAEs.
find_package(SUNDIALS 6.4 REQUIRED COMPONENTS cvode ida nvecserial sunmatrixdense
             sunlinsoldense sunmatrixsparse sunlinsolklu sunnonlinsolnewton sunnonlinsolfixedpoint)
if(KKTDAE_BUILD_APPS)
  find_package(CLI11 REQUIRED)
  find_package(nlohmann_json 3 REQUIRED)
endif()
if(KKTDAE_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
endif()
