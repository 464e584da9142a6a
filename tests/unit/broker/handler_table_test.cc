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
      {0, {0, 13}}, {1, {4, 18}}, {2, {1, 11}}, {3, {0, 13}},
      {8, {2, 10}}, {9, {1, 10}}, {10, {0, 6}}, {11, {0, 9}},
      {12, {0, 4}}, {13, {0, 5}}, {14, {0, 5}}, {15, {0, 6}},
      {16, {0, 5}}, {17, {0, 1}},
      {18, {0, 5}}, {19, {2, 7}}, {20, {1, 6}}, {21, {0, 2}}, {22, {0, 5}}, {23, {2, 4}},
      {24, {0, 5}}, {25, {0, 4}}, {26, {0, 4}}, {27, {1, 2}}, {28, {0, 6}},
      {29, {1, 3}}, {30, {1, 3}}, {31, {1, 3}},
      {32, {1, 4}}, {33, {0, 2}}, {35, {1, 5}}, {36, {0, 2}}, {37, {0, 3}},
      {42, {0, 3}}, {43, {0, 2}}, {44, {0, 1}}, {45, {0, 1}}, {46, {0, 0}}, {47, {0, 0}}, {48, {0, 1}}, {49, {0, 1}}, {50, {0, 0}}, {51, {0, 0}}, {60, {0, 2}}, {61, {0, 0}}, {65, {0, 0}},
      {66, {0, 2}},
      {75, {0, 0}}};
  std::map<int16_t, std::pair<int16_t, int16_t>> served;
  for (const auto& a : served_apis()) {
    if (allowed_on(a.listeners, Listener::kClient)) served[a.api_key] = {a.min_version, a.max_version};
  }
  EXPECT_EQ(served, expected);
  ASSERT_NE(find_served_api(1, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(1, Listener::kClient)->name, "Fetch");
  EXPECT_EQ(find_served_api(1, Listener::kClient)->first_flexible, 12);
  ASSERT_NE(find_served_api(10, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(10, Listener::kClient)->name, "FindCoordinator");
  EXPECT_EQ(find_served_api(38, Listener::kClient), nullptr);  // CreateDelegationToken: not served

  const protocol::ApiVersionsResponse resp = make_api_versions_response(Listener::kClient);
  EXPECT_EQ(resp.error_code, protocol::ErrorCode::kNone);
  std::map<int16_t, std::pair<int16_t, int16_t>> answered;
  for (const auto& k : resp.api_keys) answered[k.api_key] = {k.min_version, k.max_version};
  EXPECT_EQ(answered, expected);
}

TEST(HandlerTable, Kip511UnsupportedVersionAnswer) {
  // Header v0 (correlation id), error 35, one entry: ApiVersions 0-5.
  EXPECT_EQ(to_hex(encode_unsupported_api_versions(7, Listener::kClient)),
            "00000007" "0023" "00000001" "0012" "0000" "0005");
}

TEST(HandlerTable, ClientRowsOnTheClientListenerInterBrokerRowsOnlyOnAClusterMember) {
  // The controller's and the brokers' requests (Kafka 3.x's ZooKeeper-mode
  // ranges), served only where the listener plays the inter-broker role.
  const std::map<int16_t, std::pair<int16_t, int16_t>> inter_broker = {
      {4, {0, 7}}, {5, {0, 4}}, {6, {0, 8}}, {7, {0, 3}}, {56, {0, 3}}};
  std::map<int16_t, std::pair<int16_t, int16_t>> found;
  for (const auto& a : served_apis()) {
    EXPECT_NE(a.handler, nullptr) << a.name;
    EXPECT_EQ(find_served_api(a.api_key, Listener::kController), nullptr) << a.name;
    if (a.listeners == kInterBrokerOnly) {
      found[a.api_key] = {a.min_version, a.max_version};
      EXPECT_EQ(find_served_api(a.api_key, Listener::kClient), nullptr) << a.name;
      EXPECT_EQ(find_served_api(a.api_key, kClientAndInterBroker), &a) << a.name;
    } else {
      EXPECT_EQ(a.listeners, kClientOnly) << a.name;
      EXPECT_EQ(find_served_api(a.api_key, Listener::kInterBroker), nullptr) << a.name;
    }
  }
  EXPECT_EQ(found, inter_broker);
  std::map<int16_t, std::pair<int16_t, int16_t>> answered;
  for (const auto& k : make_api_versions_response(Listener::kInterBroker).api_keys)
    answered[k.api_key] = {k.min_version, k.max_version};
  EXPECT_EQ(answered, inter_broker);
  // A cluster member's listener answers both sets; single node the client set only.
  const auto both = make_api_versions_response(kClientAndInterBroker);
  const auto client = make_api_versions_response(Listener::kClient);
  EXPECT_EQ(both.api_keys.size(), client.api_keys.size() + inter_broker.size());
  for (const auto& k : client.api_keys) EXPECT_EQ(inter_broker.count(k.api_key), 0u) << k.api_key;
  // KIP-511 answer is the same in both modes (ApiVersions is a client row).
  EXPECT_EQ(to_hex(encode_unsupported_api_versions(7, kClientAndInterBroker)),
            to_hex(encode_unsupported_api_versions(7, Listener::kClient)));
  EXPECT_EQ(find_served_api(-1, Listener::kClient), nullptr);
  EXPECT_EQ(find_served_api(32767, Listener::kClient), nullptr);
}

// The Authz column (what an authorizer checks, and where): the APIs any
// client needs before it can authenticate are never gated; the
// inter-broker ones need CLUSTER_ACTION; every other one checks per
// resource in its handler.
TEST(HandlerTable, AuthorizationColumn) {
  std::map<std::string, Authz> by_name;
  for (const auto& a : served_apis()) {
    by_name[std::string(a.name)] = a.authz;
    if (a.listeners == kInterBrokerOnly) {
      EXPECT_EQ(a.authz, Authz::kClusterAction) << a.name;
    }
  }
  for (const char* n : {"ApiVersions", "SaslHandshake", "SaslAuthenticate"}) EXPECT_EQ(by_name[n], Authz::kNone) << n;
  EXPECT_EQ(by_name["WriteTxnMarkers"], Authz::kClusterAction);
  size_t in_handler = 0;
  for (const auto& [name, authz] : by_name) {
    if (authz == Authz::kInHandler) ++in_handler;
    if (authz == Authz::kNone) {
      EXPECT_TRUE(name == "ApiVersions" || name == "SaslHandshake" || name == "SaslAuthenticate") << name;
    }
  }
  EXPECT_EQ(in_handler, by_name.size() - 3 - 6);  // all but the 3 ungated and the 6 cluster-action rows
}

}  // namespace
}  // namespace spool::broker
