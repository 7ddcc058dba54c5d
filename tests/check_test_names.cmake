# CTest's Catch2 discovery splits a test name at ';' (CMake's list separator): such a test turns
# into entries that match nothing and "pass" without running. Fail when any name has one.
#   cmake -D TEST_BINARY=<catch2 binary> -P check_test_names.cmake
execute_process(COMMAND "${TEST_BINARY}" --list-test-names-only
                OUTPUT_VARIABLE names)
# Catch2 2.x exits with the number of tests listed, so the output, not the status, is checked.
if(names STREQUAL "")
  message(FATAL_ERROR "${TEST_BINARY} --list-test-names-only listed nothing")
endif()
string(FIND "${names}" ";" position)
if(NOT position EQUAL -1)
  string(REPLACE ";" "<;>" marked "${names}")
  message(FATAL_ERROR "test names of ${TEST_BINARY} contain ';' (CTest would never run them; marked <;>):\n${marked}")
endif()
message(STATUS "${TEST_BINARY}: no test name contains ';'")
