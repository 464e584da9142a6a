// Writes the table-derived seeds of fuzz_request (tests/fuzz/request_seeds.h)
// into a directory: `make_request_corpus tests/fuzz/corpus/request`. Run it
// after serving a new API or version and commit the new files;
// broker_fuzz_corpus_test fails until then. Hand-made seeds with real
// content (a produce with a record batch, ...) come from make_corpus.py.
#include <cstdio>
#include <fstream>
#include <string>

#include "request_seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  int written = 0;
  for (const auto& seed : spool::fuzz::request_seeds()) {
    const std::string path = std::string(argv[1]) + "/" + seed.name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(seed.frame.data()), static_cast<std::streamsize>(seed.frame.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    ++written;
  }
  std::printf("%d seeds written to %s\n", written, argv[1]);
  return 0;
}
