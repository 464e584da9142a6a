// The committed request corpus of fuzz_request covers every served API and
// version family of the handler table (one seed file per entry of
// tests/fuzz/request_seeds.h, byte-identical to what make_request_corpus
// writes), and every committed seed names a served API and version whose
// body decodes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "request_seeds.h"

namespace spool::broker {
namespace {

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(FuzzCorpus, EveryServedApiAndVersionFamilyHasASeed) {
  const std::filesystem::path dir = SPOOL_REQUEST_CORPUS;
  std::set<std::pair<int16_t, int16_t>> families;  // (key, first-flexible?) seen
  for (const auto& seed : fuzz::request_seeds()) {
    SCOPED_TRACE(seed.name);
    ASSERT_TRUE(std::filesystem::exists(dir / seed.name))
        << "missing seed: run build/tests/unit/broker/make_request_corpus " << dir.string();
    EXPECT_EQ(read_file(dir / seed.name), seed.frame) << "stale seed: rerun make_request_corpus";
    const ApiEntry* api = find_served_api(seed.api_key, kClientAndInterBroker);
    ASSERT_NE(api, nullptr);
    families.insert({seed.api_key, seed.version >= api->first_flexible ? 1 : 0});
  }
  for (const auto& a : served_apis()) {
    EXPECT_TRUE(families.count({a.api_key, 0}) || a.min_version >= a.first_flexible) << a.name;
    EXPECT_TRUE(families.count({a.api_key, 1}) || a.max_version < a.first_flexible) << a.name;
  }
}

TEST(FuzzCorpus, EveryCommittedSeedDecodes) {
  size_t n = 0;
  for (const auto& file : std::filesystem::directory_iterator(SPOOL_REQUEST_CORPUS)) {
    SCOPED_TRACE(file.path().filename().string());
    const Bytes frame = read_file(file.path());
    ByteReader r(frame);
    protocol::RequestHeader h;
    ASSERT_TRUE(protocol::decode_request_header(r, h));
    const ApiEntry* api = find_served_api(h.api_key, kClientAndInterBroker);
    ASSERT_NE(api, nullptr);
    ASSERT_GE(h.api_version, api->min_version);
    ASSERT_LE(h.api_version, api->max_version);
    bool decoded = false;
    for_each_api(ServedApis{}, [&]<typename Api>() {
      if (Api::kApiKey != h.api_key) return;
      typename Api::Request req;
      decoded = req.decode(r, h.api_version) && r.remaining() == 0;
    });
    EXPECT_TRUE(decoded);
    ++n;
  }
  EXPECT_GT(n, served_apis().size());
}

}  // namespace
}  // namespace spool::broker
