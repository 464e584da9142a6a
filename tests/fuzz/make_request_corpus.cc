// Writes the table-derived seeds of the request fuzzers
// (tests/fuzz/request_seeds.h) under a corpus root, one folder per API
// family: `make_request_corpus tests/fuzz/corpus/request` writes
// tests/fuzz/corpus/request/<family>/<seed>. Run it after serving a new API
// or version and commit the new files; broker_fuzz_corpus_test fails until
// then. Seeds with real content come from make_corpus.py (hand-made) and
// capture_traffic.py (real clients).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "request_seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 2;
  }
  int written = 0;
  for (const auto& seed : spool::fuzz::request_seeds()) {
    const std::filesystem::path dir = std::filesystem::path(argv[1]) / spool::broker::api_family_name(seed.family);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string path = (dir / seed.name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(seed.frame.data()), static_cast<std::streamsize>(seed.frame.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    ++written;
  }
  std::printf("%d seeds written under %s\n", written, argv[1]);
  return 0;
}
