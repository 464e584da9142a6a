# spool_unit_test(<name> SOURCES <files...> LIBS <libs...>)
# Builds one GoogleTest binary and registers its tests with ctest, labelled
# "unit". Every unit test binary is also a dependency of the aggregate target
# spool_unit_tests (what the ASan build compiles).
function(spool_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main Threads::Threads)
  # Test helpers shared across modules: #include "common/...".
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
  gtest_discover_tests(${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
  set_property(GLOBAL APPEND PROPERTY SPOOL_UNIT_TESTS ${name})
endfunction()

# spool_fuzzer(<name> SOURCES <files...> LIBS <libs...> CORPUS <dir> RUNS <n> [ARGS <flags...>])
# A libFuzzer target (clang only), run by ctest (label "fuzz") for a fixed
# number of iterations over its seed corpus, from the seeds alone each time
# (a fixture empties the scratch corpus first, so the run is the same every
# time and does not grow with the runs before it); ARGS are extra libFuzzer
# flags (scripts/fuzz-long keeps them for its timed runs, which use a
# scratch corpus of their own).
function(spool_fuzzer name)
  cmake_parse_arguments(F "" "CORPUS;RUNS" "SOURCES;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${F_SOURCES})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  # New inputs go to a scratch corpus in the build tree (the first directory
  # libFuzzer is given); the committed seeds are only read.
  set(scratch ${CMAKE_CURRENT_BINARY_DIR}/corpus-${name})
  file(MAKE_DIRECTORY ${scratch})
  add_test(NAME ${name}_fresh_corpus COMMAND ${CMAKE_COMMAND} -DDIR=${scratch} -P ${CMAKE_SOURCE_DIR}/cmake/fresh_dir.cmake)
  set_tests_properties(${name}_fresh_corpus PROPERTIES FIXTURES_SETUP ${name}_corpus)
  add_test(NAME ${name} COMMAND ${name} -runs=${F_RUNS} -seed=1 -max_len=65536 ${F_ARGS} ${scratch} ${F_CORPUS})
  set_tests_properties(${name} PROPERTIES LABELS fuzz FIXTURES_REQUIRED ${name}_corpus)
  set_property(GLOBAL APPEND PROPERTY SPOOL_FUZZERS ${name})
endfunction()
