// The handler table: the advertised ranges (PROTOCOL-NOTES.md), the lookup
// by key and listener, and the KIP-511 answer.
#include "broker/handlers/handler_table.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "protocol/error_code.h"

namespace spool::broker {
namespace {

std::string to_hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

TEST(HandlerTable, AdvertisedRanges) {
  const std::map<int16_t, std::pair<int16_t, int16_t>> expected = {
      {0, {0, 13}}, {1, {4, 18}}, {2, {1, 5}}, {3, {0, 8}},
      {8, {2, 7}}, {9, {1, 7}}, {10, {0, 2}}, {11, {0, 5}},
      {12, {0, 3}}, {13, {0, 3}}, {14, {0, 3}}, {15, {0, 4}},
      {16, {0, 4}},
      {18, {0, 3}}, {19, {2, 4}}, {20, {1, 3}}, {21, {0, 1}}, {22, {0, 4}},
      {24, {0, 2}}, {25, {0, 2}}, {26, {0, 2}}, {27, {0, 1}}, {28, {0, 3}},
      {32, {1, 2}}, {33, {0, 1}}, {35, {0, 1}}, {37, {0, 1}},
      {42, {0, 1}}, {44, {0, 0}}, {47, {0, 0}}, {60, {0, 0}}, {61, {0, 0}}, {65, {0, 0}}, {66, {0, 0}}};
  std::map<int16_t, std::pair<int16_t, int16_t>> served;
  for (const auto& a : served_apis()) served[a.api_key] = {a.min_version, a.max_version};
  EXPECT_EQ(served, expected);
  ASSERT_NE(find_served_api(1, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(1, Listener::kClient)->name, "Fetch");
  EXPECT_EQ(find_served_api(1, Listener::kClient)->first_flexible, 12);
  ASSERT_NE(find_served_api(10, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(10, Listener::kClient)->name, "FindCoordinator");
  EXPECT_EQ(find_served_api(29, Listener::kClient), nullptr);  // DescribeAcls: not served yet

  const protocol::ApiVersionsResponse resp = make_api_versions_response(Listener::kClient);
  EXPECT_EQ(resp.error_code, protocol::ErrorCode::kNone);
  std::map<int16_t, std::pair<int16_t, int16_t>> answered;
  for (const auto& k : resp.api_keys) answered[k.api_key] = {k.min_version, k.max_version};
  EXPECT_EQ(answered, expected);
}

TEST(HandlerTable, Kip511UnsupportedVersionAnswer) {
  // Header v0 (correlation id), error 35, one entry: ApiVersions 0-3.
  EXPECT_EQ(to_hex(encode_unsupported_api_versions(7, Listener::kClient)),
            "00000007" "0023" "00000001" "0012" "0000" "0003");
}

TEST(HandlerTable, EveryEntryIsServedOnTheClientListenerOnlyForNow) {
  for (const auto& a : served_apis()) {
    EXPECT_EQ(a.listeners, kClientOnly) << a.name;
    EXPECT_EQ(find_served_api(a.api_key, Listener::kController), nullptr) << a.name;
    EXPECT_NE(a.handler, nullptr) << a.name;
  }
  EXPECT_TRUE(make_api_versions_response(Listener::kInterBroker).api_keys.empty());
  EXPECT_EQ(find_served_api(-1, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(32767, Listener::kClient), nullptr);
}

}  // namespace
}  // namespace spool::broker
