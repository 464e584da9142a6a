// write_line: one event line on stdout, written whole. The native client logs
// to the same stdout from its own threads; a line written in pieces
// (`std::cout << json << std::endl` is two writes) can have a log line land
// between its JSON and its newline, and the test's reader then drops the
// event. One fwrite holds stdout's lock for the whole line.
#pragma once

#include <cstdio>
#include <string>

inline void write_line(std::string line) {
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}
