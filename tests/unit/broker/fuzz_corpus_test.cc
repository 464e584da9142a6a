// The committed seed corpus of the request fuzzers (fuzz_request_<family>,
// one per ApiFamily of the handler table; CMake makes one target per folder
// of tests/fuzz/corpus/request) covers every served API and version family:
// one folder per ApiFamily and no other, in it one seed file per entry of
// tests/fuzz/request_seeds.h for that family, byte-identical to what
// make_request_corpus writes; and every committed seed (table-derived,
// hand-made or captured from real clients) names a served API of its
// folder's family at a served version whose body decodes in full as the
// API's request or response.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "broker/handlers/handler_table.h"
#include "protocol/header.h"
#include "request_seeds.h"

namespace spool::broker {
namespace {

namespace fs = std::filesystem;

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::set<std::string> family_names() {
  std::set<std::string> out;
  for (size_t i = 0; i < kApiFamilyCount; ++i) out.insert(std::string(api_family_name(static_cast<ApiFamily>(i))));
  return out;
}

TEST(FuzzCorpus, OneFolderPerApiFamilyAndEveryFamilyHasApis) {
  const fs::path root = SPOOL_REQUEST_CORPUS;
  std::set<std::string> folders;
  for (const auto& e : fs::directory_iterator(root)) {
    ASSERT_TRUE(e.is_directory()) << e.path() << ": seeds go into the folder of their API's family";
    folders.insert(e.path().filename().string());
  }
  EXPECT_EQ(folders, family_names()) << "rerun make_request_corpus " << root.string();
  std::set<ApiFamily> used;
  for_each_api(ServedApis{}, [&]<typename Api>() { used.insert(Api::kFamily); });
  EXPECT_EQ(used.size(), kApiFamilyCount) << "a family without APIs makes an empty fuzz target";
}

TEST(FuzzCorpus, EveryServedApiAndVersionFamilyHasASeed) {
  const fs::path root = SPOOL_REQUEST_CORPUS;
  std::set<std::pair<int16_t, int16_t>> families;  // (key, first-flexible?) seen
  for (const auto& seed : fuzz::request_seeds()) {
    SCOPED_TRACE(seed.name);
    const fs::path file = root / api_family_name(seed.family) / seed.name;
    ASSERT_TRUE(fs::exists(file)) << "missing seed: run build/tests/unit/broker/make_request_corpus " << root.string();
    EXPECT_EQ(read_file(file), seed.frame) << "stale seed: rerun make_request_corpus";
    const ApiEntry* api = find_served_api(seed.api_key, kClientAndInterBroker);
    ASSERT_NE(api, nullptr);
    families.insert({seed.api_key, seed.version >= api->first_flexible ? 1 : 0});
  }
  for (const auto& a : served_apis()) {
    EXPECT_TRUE(families.count({a.api_key, 0}) || a.min_version >= a.first_flexible) << a.name;
    EXPECT_TRUE(families.count({a.api_key, 1}) || a.max_version < a.first_flexible) << a.name;
  }
}

TEST(FuzzCorpus, EveryCommittedSeedDecodesInItsFamily) {
  size_t n = 0;
  for (const auto& file : fs::recursive_directory_iterator(SPOOL_REQUEST_CORPUS)) {
    if (!file.is_regular_file()) continue;
    const std::string folder = file.path().parent_path().filename().string();
    SCOPED_TRACE(folder + "/" + file.path().filename().string());
    const Bytes frame = read_file(file.path());
    ByteReader r(frame);
    protocol::RequestHeader h;
    ASSERT_TRUE(protocol::decode_request_header(r, h));
    const ApiEntry* api = find_served_api(h.api_key, kClientAndInterBroker);
    ASSERT_NE(api, nullptr);
    ASSERT_GE(h.api_version, api->min_version);
    ASSERT_LE(h.api_version, api->max_version);
    const ByteSpan body = r.data().subspan(r.position());
    bool in_family = false, decoded = false;
    for_each_api(ServedApis{}, [&]<typename Api>() {
      if (Api::kApiKey != h.api_key) return;
      in_family = api_family_name(Api::kFamily) == folder;
      ByteReader as_request(body), as_response(body);
      typename Api::Request req;
      typename Api::Response resp;
      decoded = (req.decode(as_request, h.api_version) && as_request.remaining() == 0) ||
                (resp.decode(as_response, h.api_version) && as_response.remaining() == 0);
    });
    EXPECT_TRUE(in_family) << "the seed is in another family's folder";
    EXPECT_TRUE(decoded);
    ++n;
  }
  EXPECT_GT(n, 2 * served_apis().size());
}

}  // namespace
}  // namespace spool::broker
