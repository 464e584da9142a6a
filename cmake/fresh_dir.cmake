# cmake -DDIR=<dir> -P fresh_dir.cmake: removes DIR with everything in it
# and makes it again, empty. Run by ctest before each fuzz target (see
# spool_fuzzer in SpoolTest.cmake) so that its run starts from the seeds
# alone, the same every time.
if(NOT DIR)
  message(FATAL_ERROR "fresh_dir.cmake: set DIR")
endif()
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
