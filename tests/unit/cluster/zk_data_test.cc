// zk_data codecs of the broker, topic, partition-state, controller,
// controller-epoch and cluster-id znodes: the exact bytes Kafka 3.x writes
// (field names, versions, string-vs-number quirks), round trips, documents
// Kafka wrote (keys in its hash-map order), and every malformed-input branch.
#include "cluster/zk_data.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace spool::cluster {
namespace {

TopicId counting_id() {
  TopicId id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i);
  return id;
}

// Asserts a decode failed and its message contains `part` (the path and field).
template <typename T>
void expect_error(const Result<T>& r, const std::string& part) {
  ASSERT_FALSE(r.is_ok()) << "expected an error containing: " << part;
  EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().message();
}

// ------------------------------------------------------------------ topic ids

TEST(TopicIdText, KafkaUuidToStringIsUrlSafeBase64WithoutPadding) {
  EXPECT_EQ(topic_id_to_text(counting_id()), "AAECAwQFBgcICQoLDA0ODw");
  TopicId high{};
  high.fill(0xfe);
  high[0] = 0xfb;
  high[1] = 0xff;
  // '-' and '_' instead of '+' and '/'.
  EXPECT_EQ(topic_id_to_text(high), "-__-_v7-_v7-_v7-_v7-_g");
  EXPECT_EQ(topic_id_from_text("-__-_v7-_v7-_v7-_v7-_g"), high);
}

TEST(TopicIdText, DecodeAcceptsPaddedFormAndRejectsOthers) {
  EXPECT_EQ(topic_id_from_text("AAECAwQFBgcICQoLDA0ODw"), counting_id());
  EXPECT_EQ(topic_id_from_text("AAECAwQFBgcICQoLDA0ODw=="), counting_id());
  EXPECT_FALSE(topic_id_from_text("AAECAwQFBgcICQoLDA0OD"));     // 21 chars
  EXPECT_FALSE(topic_id_from_text("AAECAwQFBgcICQoLDA0ODw="));   // 23 chars
  EXPECT_FALSE(topic_id_from_text("AAECAwQFBgcICQoLDA0ODwAA"));  // 24 chars, not padding
  EXPECT_FALSE(topic_id_from_text("+AECAwQFBgcICQoLDA0ODw"));    // standard alphabet
  EXPECT_FALSE(topic_id_from_text(""));
}

TEST(TopicIdText, MakeTopicIdSetsV4BitsAndNeverStartsWithDash) {
  // Draws: a first id whose text would start with '-' (0xf8 = 111110 00), then a good one.
  std::vector<uint64_t> draws{0xf800000000000000ull, 0, 0x0123456789abcdefull, 0xfedcba9876543210ull};
  size_t next = 0;
  const TopicId id = make_topic_id([&] { return draws.at(next++); });
  EXPECT_EQ(next, 4u);
  EXPECT_EQ(id, (TopicId{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0x4d, 0xef,  // byte 6: 0xcd -> 0x4d
                         0xbe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}));  // byte 8: 0xfe -> 0xbe
  EXPECT_EQ(topic_id_to_text(id), "ASNFZ4mrTe--3LqYdlQyEA");
  // A source stuck on '-' still terminates, with the first bit cleared.
  const TopicId stuck = make_topic_id([] { return 0xfbffffffffffffffull; });
  EXPECT_EQ(stuck[0], 0x7b);
  EXPECT_NE(topic_id_to_text(stuck)[0], '-');
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const TopicId r = make_topic_id([&] { return rng(); });
    ASSERT_NE(topic_id_to_text(r)[0], '-');
    ASSERT_EQ(r[6] >> 4, 4);
    ASSERT_EQ(r[8] >> 6, 2);
  }
}

// ------------------------------------------------------------------ brokers

BrokerRegistration two_listener_broker() {
  BrokerRegistration b;
  b.id = 3;
  b.endpoints = {{"PLAINTEXT", "h1", 9092, "PLAINTEXT"}, {"SSL", "h1", 9093, "SSL"}};
  b.rack = "r1";
  b.timestamp_ms = 1700000000123;
  return b;
}

TEST(BrokerCodec, EncodesV5AsKafkaDoes) {
  EXPECT_EQ(encode_broker(two_listener_broker()),
            R"({"version":5,"host":"h1","port":9092,"endpoints":["PLAINTEXT://h1:9092","SSL://h1:9093"],)"
            R"("jmx_port":-1,"timestamp":"1700000000123","rack":"r1",)"
            R"("listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"},"features":{}})");
}

TEST(BrokerCodec, EncodesFeaturesMinThenMax) {
  BrokerRegistration b = two_listener_broker();
  b.rack.reset();
  b.features["metadata.version"] = {1, 14};
  EXPECT_EQ(encode_broker(b),
            R"({"version":5,"host":"h1","port":9092,"endpoints":["PLAINTEXT://h1:9092","SSL://h1:9093"],)"
            R"("jmx_port":-1,"timestamp":"1700000000123",)"
            R"("listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"},)"
            R"("features":{"metadata.version":{"min_version":1,"max_version":14}}})");
}

TEST(BrokerCodec, EncodesV4WithoutFeatures) {
  BrokerRegistration b = two_listener_broker();
  b.version = 4;
  b.features["x"] = {1, 2};
  EXPECT_EQ(encode_broker(b),
            R"({"version":4,"host":"h1","port":9092,"endpoints":["PLAINTEXT://h1:9092","SSL://h1:9093"],)"
            R"("jmx_port":-1,"timestamp":"1700000000123","rack":"r1",)"
            R"("listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"}})");
}

TEST(BrokerCodec, HostAndPortComeFromFirstPlaintextProtocolEndpoint) {
  BrokerRegistration b;
  b.id = 1;
  // The listener named INTERNAL speaks PLAINTEXT: it is "the plaintext endpoint".
  b.endpoints = {{"EXTERNAL", "ext", 9094, "SSL"}, {"INTERNAL", "int", 9092, "PLAINTEXT"}};
  b.timestamp_ms = 5;
  EXPECT_EQ(encode_broker(b),
            R"({"version":5,"host":"int","port":9092,"endpoints":["EXTERNAL://ext:9094","INTERNAL://int:9092"],)"
            R"("jmx_port":-1,"timestamp":"5","listener_security_protocol_map":{"EXTERNAL":"SSL","INTERNAL":"PLAINTEXT"},)"
            R"("features":{}})");
}

TEST(BrokerCodec, NoPlaintextEndpointGivesNullHostAndPortMinusOne) {
  BrokerRegistration b;
  b.endpoints = {{"SSL", "h", 9093, "SSL"}};
  const std::string json = encode_broker(b);
  EXPECT_NE(json.find(R"("host":null,"port":-1,)"), std::string::npos) << json;
  auto back = decode_broker(0, json);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), b);
}

TEST(BrokerCodec, EmptyHostAndIpv6HostConnectionStrings) {
  EXPECT_EQ(endpoint_connection_string({"PLAINTEXT", "", 9092, "PLAINTEXT"}), "PLAINTEXT://:9092");
  EXPECT_EQ(endpoint_connection_string({"PLAINTEXT", "::1", 9092, "PLAINTEXT"}), "PLAINTEXT://[::1]:9092");
  BrokerRegistration b;
  b.id = 9;
  b.endpoints = {{"PLAINTEXT", "", 9092, "PLAINTEXT"}, {"V6", "fe80::1%eth0", 9093, "SASL_SSL"}};
  const std::string json = encode_broker(b);
  // A null host (all interfaces) is written as JSON null at the top level.
  EXPECT_NE(json.find(R"("host":null,"port":9092,"endpoints":["PLAINTEXT://:9092","V6://[fe80::1%eth0]:9093"])"),
            std::string::npos)
      << json;
  auto back = decode_broker(9, json);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), b);
}

TEST(BrokerCodec, RoundTripsEveryField) {
  BrokerRegistration b = two_listener_broker();
  b.jmx_port = 9999;
  b.features["a"] = {0, 3};
  b.features["b"] = {2, 2};
  auto back = decode_broker(3, encode_broker(b));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), b);
  b.version = 4;
  b.features.clear();
  back = decode_broker(3, encode_broker(b));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), b);
}

TEST(BrokerCodec, DecodesWhatKafkaWroteInHashOrder) {
  // A Kafka 3.6 registration as read back with zookeeper-shell (mutable.Map order).
  const std::string kafka =
      R"({"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},)"
      R"("endpoints":["PLAINTEXT://localhost:9092"],"jmx_port":-1,"port":9092,"host":"localhost",)"
      R"("version":5,"timestamp":"1700000000000"})";
  auto b = decode_broker(0, kafka);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b->id, 0);
  EXPECT_EQ(b->version, 5);
  ASSERT_EQ(b->endpoints.size(), 1u);
  EXPECT_EQ(b->endpoints[0], (EndPoint{"PLAINTEXT", "localhost", 9092, "PLAINTEXT"}));
  EXPECT_EQ(b->timestamp_ms, 1700000000000);
  EXPECT_FALSE(b->rack);
  EXPECT_TRUE(b->features.empty());
}

TEST(BrokerCodec, DecodesAKafka2V4Registration) {
  // As printed by zookeeper-shell for a Kafka 2.x broker (Scala 2.12 hash order).
  auto b = decode_broker(101, R"({"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},)"
                              R"("endpoints":["PLAINTEXT://zjj101:9092"],"jmx_port":-1,"host":"zjj101",)"
                              R"("timestamp":"1614570663881","port":9092,"version":4})");
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b->version, 4);
  EXPECT_EQ(b->timestamp_ms, 1614570663881);
  EXPECT_EQ(b->endpoints, (std::vector<EndPoint>{{"PLAINTEXT", "zjj101", 9092, "PLAINTEXT"}}));
}

TEST(BrokerCodec, DecodesV4AndListenerNamesCaseInsensitively) {
  auto b = decode_broker(
      2, R"({"version":4,"host":"h","port":1,"endpoints":["client://h:1"],"jmx_port":-1,"timestamp":"0",)"
         R"("rack":null,"listener_security_protocol_map":{"CLIENT":"SASL_PLAINTEXT"}})");
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b->version, 4);
  EXPECT_FALSE(b->rack);
  EXPECT_EQ(b->endpoints[0], (EndPoint{"CLIENT", "h", 1, "SASL_PLAINTEXT"}));
}

TEST(BrokerCodec, WithoutProtocolMapListenerMustBeAProtocolName) {
  auto ok = decode_broker(1, R"({"version":4,"endpoints":["SSL://h:1"],"jmx_port":-1,"timestamp":"0"})");
  ASSERT_TRUE(ok.is_ok()) << ok.status().message();
  EXPECT_EQ(ok->endpoints[0].security_protocol, "SSL");
  expect_error(decode_broker(1, R"({"version":4,"endpoints":["INTERNAL://h:1"],"jmx_port":-1,"timestamp":"0"})"),
               "/brokers/ids/1: field 'endpoints[0]' names listener INTERNAL but there is no "
               "listener_security_protocol_map");
}

TEST(BrokerCodec, RejectsMalformedDocuments) {
  const std::string head = R"({"version":5,"jmx_port":-1,"timestamp":"1",)";
  const std::string map = R"("listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"})";
  const std::string eps = R"("endpoints":["PLAINTEXT://h:9092"])";
  // Sanity: the pieces make a valid document.
  ASSERT_TRUE(decode_broker(7, head + eps + "," + map + "}").is_ok());

  expect_error(decode_broker(7, "not json"), "/brokers/ids/7: not valid JSON");
  expect_error(decode_broker(7, ""), "/brokers/ids/7: not valid JSON");
  expect_error(decode_broker(7, "[1]"), "/brokers/ids/7: expected a JSON object, got array");
  expect_error(decode_broker(7, R"({"version":5,"jmx_port":-1)"), "not valid JSON");  // truncated
  expect_error(decode_broker(7, R"({"jmx_port":-1,"timestamp":"1",)" + eps + "}"), "field 'version' is missing");
  expect_error(decode_broker(7, R"({"version":3,"jmx_port":-1,"timestamp":"1",)" + eps + "}"),
               "field 'version' is 3, supported: 4, 5");
  expect_error(decode_broker(7, R"({"version":6})"), "field 'version' is 6, supported: 4, 5");
  expect_error(decode_broker(7, R"({"version":"5"})"), "field 'version' must be an integer, got string");
  expect_error(decode_broker(7, R"({"version":5.0})"), "field 'version' must be an integer, got a fraction");
  expect_error(decode_broker(7, R"({"version":5,"timestamp":"1",)" + eps + "}"), "field 'jmx_port' is missing");
  expect_error(decode_broker(7, R"({"version":5,"jmx_port":-2,"timestamp":"1",)" + eps + "}"),
               "field 'jmx_port' is -2, outside [-1, 65535]");
  // Kafka writes the timestamp as a string; a number is not what it wrote.
  expect_error(decode_broker(7, R"({"version":5,"jmx_port":-1,"timestamp":1,)" + eps + "}"),
               "field 'timestamp' must be a string, got number");
  expect_error(decode_broker(7, R"({"version":5,"jmx_port":-1,"timestamp":"12a",)" + eps + "}"),
               "field 'timestamp' must be a decimal string");
  expect_error(decode_broker(7, head + map + "}"), "field 'endpoints' is missing");
  expect_error(decode_broker(7, head + R"("endpoints":"PLAINTEXT://h:1",)" + map + "}"),
               "field 'endpoints' must be an array, got string");
  expect_error(decode_broker(7, head + R"("endpoints":[],)" + map + "}"), "field 'endpoints' must not be empty");
  expect_error(decode_broker(7, head + R"("endpoints":[5],)" + map + "}"),
               "field 'endpoints[0]' must be a string, got number");
  expect_error(decode_broker(7, head + R"("endpoints":["h:1"],)" + map + "}"),
               "field 'endpoints[0]' \"h:1\" is not LISTENER://host:port");
  expect_error(decode_broker(7, head + R"("endpoints":["://h:1"],)" + map + "}"), "is not LISTENER://host:port");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h"],)" + map + "}"), "has no port");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h:x"],)" + map + "}"),
               "has a port that is not a number in [0, 65535]");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h:65536"],)" + map + "}"),
               "has a port that is not a number in [0, 65535]");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h:-1"],)" + map + "}"),
               "has a port that is not a number");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://[::1:9092"],)" + map + "}"),
               "has an unclosed '[' around its host");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h/x:1"],)" + map + "}"),
               "has a host with characters outside");
  expect_error(decode_broker(7, head + R"("endpoints":["SSL://h:1"],)" + map + "}"),
               "field 'endpoints[0]' names listener SSL, absent from listener_security_protocol_map");
  expect_error(decode_broker(7, head + R"("endpoints":["PLAINTEXT://h:1","plaintext://h:2"],)" + map + "}"),
               "field 'endpoints[1]' repeats listener PLAINTEXT");
  expect_error(decode_broker(7, head + eps + R"(,"listener_security_protocol_map":{"PLAINTEXT":"TLS"}})"),
               "field 'listener_security_protocol_map.PLAINTEXT' names unknown security protocol \"TLS\"");
  expect_error(decode_broker(7, head + eps + R"(,"listener_security_protocol_map":{"PLAINTEXT":1}})"),
               "field 'listener_security_protocol_map.PLAINTEXT' must be a string, got number");
  expect_error(decode_broker(7, head + eps + R"(,"listener_security_protocol_map":[]})"),
               "field 'listener_security_protocol_map' must be an object, got array");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"rack":7})"), "field 'rack' must be a string, got number");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"features":[]})"),
               "field 'features' must be an object, got array");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"features":{"f":1}})"),
               "field 'features.f' must be an object, got number");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"features":{"f":{"max_version":1}}})"),
               "field 'features.f.min_version' is missing");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"features":{"f":{"min_version":2,"max_version":1}}})"),
               "field 'features.f' has max_version below min_version");
  expect_error(decode_broker(7, head + eps + "," + map + R"(,"features":{"f":{"min_version":1,"max_version":40000}}})"),
               "field 'features.f.max_version' is 40000, outside [0, 32767]");
}

TEST(BrokerCodec, HostileInputIsAnErrorNotACrash) {
  expect_error(decode_broker(1, std::string(10000, '[')), "/brokers/ids/1: JSON nested deeper than 16 levels");
  expect_error(decode_broker(1, std::string(100, '{')), "nested deeper");
  expect_error(decode_broker(1, "{\"version\":\xff}"), "not valid JSON");
  expect_error(decode_broker(1, R"({"version":99999999999999999999999})"), "field 'version' must be an integer");
  expect_error(decode_broker(1, R"({"version":18446744073709551615})"), "field 'version' is out of range");
  expect_error(decode_broker(1, R"({"version":-9223372036854775808})"), "field 'version' is -9223372036854775808");
  expect_error(decode_broker(1, std::string("{\"version\":5}\0junk", 17)), "not valid JSON");
  // Brackets inside strings do not count as nesting.
  const std::string deep_string = R"({"version":5,"jmx_port":-1,"timestamp":"1","rack":")" + std::string(100, '[') +
                                  R"(","endpoints":["SSL://h:1"]})";
  auto b = decode_broker(1, deep_string);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(*b->rack, std::string(100, '['));
}

TEST(BrokerCodec, InvalidUtf8InAStringIsReplacedNotThrown) {
  BrokerRegistration b;
  b.endpoints = {{"PLAINTEXT", "h", 1, "PLAINTEXT"}};
  b.rack = std::string("r\xff");
  const std::string json = encode_broker(b);
  EXPECT_NE(json.find("\"rack\":\"r\xef\xbf\xbd\""), std::string::npos) << json;
}

// ------------------------------------------------------------------ topics

TEST(TopicCodec, EncodesV3AsKafkaDoes) {
  TopicAssignment a;
  a.topic_id = counting_id();
  a.partitions[0].replicas = {1, 2, 3};
  a.partitions[1].replicas = {2, 3, 1};
  EXPECT_EQ(encode_topic_assignment(a),
            R"({"version":3,"partitions":{"0":[1,2,3],"1":[2,3,1]},"adding_replicas":{},"removing_replicas":{},)"
            R"("topic_id":"AAECAwQFBgcICQoLDA0ODw"})");
}

TEST(TopicCodec, WithoutIdStillVersion3AndPartitionsInNumericOrder) {
  TopicAssignment a;
  for (int p : {10, 2, 1}) a.partitions[p].replicas = {p};
  EXPECT_EQ(encode_topic_assignment(a),
            R"({"version":3,"partitions":{"1":[1],"2":[2],"10":[10]},"adding_replicas":{},"removing_replicas":{}})");
}

TEST(TopicCodec, ListsOnlyPartitionsBeingReassigned) {
  TopicAssignment a;
  a.topic_id = counting_id();
  a.partitions[0] = {{1, 2, 3, 4}, {4}, {1}};
  a.partitions[1] = {{2, 3}, {}, {}};
  a.partitions[2] = {{3, 4, 5}, {5}, {}};
  const std::string json = encode_topic_assignment(a);
  EXPECT_EQ(json, R"({"version":3,"partitions":{"0":[1,2,3,4],"1":[2,3],"2":[3,4,5]},)"
                  R"("adding_replicas":{"0":[4],"2":[5]},"removing_replicas":{"0":[1]},)"
                  R"("topic_id":"AAECAwQFBgcICQoLDA0ODw"})");
  auto back = decode_topic_assignment("t", json);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back.value(), a);
}

TEST(TopicCodec, DecodesVersions1And2WithoutId) {
  auto v1 = decode_topic_assignment("t", R"({"version":1,"partitions":{"0":[0,1],"1":[1,0]}})");
  ASSERT_TRUE(v1.is_ok()) << v1.status().message();
  EXPECT_FALSE(v1->topic_id);
  EXPECT_EQ(v1->partitions.at(1).replicas, (std::vector<int32_t>{1, 0}));
  auto v2 = decode_topic_assignment(
      "t", R"({"version":2,"partitions":{"0":[0,1,2]},"adding_replicas":{"0":[2]},"removing_replicas":{}})");
  ASSERT_TRUE(v2.is_ok()) << v2.status().message();
  EXPECT_FALSE(v2->topic_id);
  EXPECT_EQ(v2->partitions.at(0).adding, (std::vector<int32_t>{2}));
  // Kafka 3.6 as read back (hash order).
  auto kafka = decode_topic_assignment(
      "t", R"({"removing_replicas":{},"partitions":{"2":[3],"1":[2],"0":[1]},"topic_id":"AAECAwQFBgcICQoLDA0ODw",)"
           R"("adding_replicas":{},"version":3})");
  ASSERT_TRUE(kafka.is_ok()) << kafka.status().message();
  EXPECT_EQ(kafka->topic_id, counting_id());
  EXPECT_EQ(kafka->partitions.size(), 3u);
  EXPECT_EQ(kafka->partitions.at(2).replicas, (std::vector<int32_t>{3}));
}

TEST(TopicCodec, RejectsMalformedDocuments) {
  const std::string p = "/brokers/topics/orders: ";
  auto d = [](const std::string& json) { return decode_topic_assignment("orders", json); };
  expect_error(d("{"), p + "not valid JSON");
  expect_error(d(R"("x")"), p + "expected a JSON object, got string");
  expect_error(d(R"({"version":4,"partitions":{"0":[1]}})"), p + "field 'version' is 4, supported: 1, 2, 3");
  expect_error(d(R"({"version":0,"partitions":{"0":[1]}})"), "field 'version' is 0");
  expect_error(d(R"({"version":3})"), p + "field 'partitions' is missing");
  expect_error(d(R"({"version":3,"partitions":[[1]]})"), p + "field 'partitions' must be an object, got array");
  expect_error(d(R"({"version":3,"partitions":{}})"), p + "field 'partitions' must not be empty");
  expect_error(d(R"({"version":3,"partitions":{"x":[1]}})"), p + "field 'partitions' has key \"x\", not a partition id");
  expect_error(d(R"({"version":3,"partitions":{"-1":[1]}})"), "has key \"-1\"");
  expect_error(d(R"({"version":3,"partitions":{"01":[1]}})"), "has key \"01\"");
  expect_error(d(R"({"version":3,"partitions":{"2147483648":[1]}})"), "has key \"2147483648\"");
  expect_error(d(R"({"version":3,"partitions":{"0":[]}})"), p + "field 'partitions.0' must not be empty");
  expect_error(d(R"({"version":3,"partitions":{"0":1}})"), p + "field 'partitions.0' must be an array of broker ids");
  expect_error(d(R"({"version":3,"partitions":{"0":[1,2,1]}})"), p + "field 'partitions.0' lists broker 1 twice");
  expect_error(d(R"({"version":3,"partitions":{"0":[-1]}})"), p + "field 'partitions.0' is -1, outside [0, 2147483647]");
  expect_error(d(R"({"version":3,"partitions":{"0":[2147483648]}})"), "is 2147483648, outside [0, 2147483647]");
  expect_error(d(R"({"version":3,"partitions":{"0":[1.5]}})"), "field 'partitions.0' must be an integer, got a fraction");
  expect_error(d(R"({"version":3,"partitions":{"0":["1"]}})"), "field 'partitions.0' must be an integer, got string");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"adding_replicas":[]})"),
               p + "field 'adding_replicas' must be an object, got array");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"adding_replicas":{"1":[1]}})"),
               p + "field 'adding_replicas.1' names a partition not in 'partitions'");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"removing_replicas":{"z":[1]}})"),
               "field 'removing_replicas.z' names a partition not in 'partitions'");
  expect_error(d(R"({"version":3,"partitions":{"0":[1,2]},"adding_replicas":{"0":[3]}})"),
               p + "field 'adding_replicas.0' lists broker 3, not a replica of the partition");
  expect_error(d(R"({"version":3,"partitions":{"0":[1,2]},"adding_replicas":{"0":[2,2]}})"),
               "field 'adding_replicas.0' lists broker 2 twice");
  expect_error(d(R"({"version":3,"partitions":{"0":[1,2]},"adding_replicas":{"0":[2]},"removing_replicas":{"0":[2]}})"),
               p + "field 'removing_replicas.0' lists broker 2 that is also being added");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"topic_id":"nope"})"),
               p + "field 'topic_id' \"nope\" is not a base64 Uuid");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"topic_id":7})"), "field 'topic_id' must be a string, got number");
  expect_error(d(R"({"version":3,"partitions":{"0":[1]},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA"})"),
               p + "field 'topic_id' is the zero Uuid");
}

// ------------------------------------------------------------ partition state

TEST(PartitionStateCodec, EncodesV1AsKafkaDoes) {
  PartitionState s{2, 7, 4, {2, 3, 1}, LeaderRecoveryState::kRecovered};
  EXPECT_EQ(encode_partition_state(s), R"({"version":1,"leader":2,"leader_epoch":7,"controller_epoch":4,"isr":[2,3,1]})");
  s.leader_recovery_state = LeaderRecoveryState::kRecovering;
  EXPECT_EQ(encode_partition_state(s),
            R"({"version":1,"leader":2,"leader_epoch":7,"controller_epoch":4,"isr":[2,3,1],"leader_recovery_state":1})");
  PartitionState none{kNoLeader, 8, 5, {3}, LeaderRecoveryState::kRecovered};
  EXPECT_EQ(encode_partition_state(none), R"({"version":1,"leader":-1,"leader_epoch":8,"controller_epoch":5,"isr":[3]})");
}

TEST(PartitionStateCodec, RoundTripsAndReadsKafkaOrder) {
  const TopicPartition tp("t", 0);
  for (const PartitionState& s : {PartitionState{1, 0, 1, {1, 2}, LeaderRecoveryState::kRecovered},
                                  PartitionState{3, 9, 2, {3}, LeaderRecoveryState::kRecovering},
                                  PartitionState{kNoLeader, 4, 2, {}, LeaderRecoveryState::kRecovered}}) {
    auto back = decode_partition_state(tp, encode_partition_state(s));
    ASSERT_TRUE(back.is_ok()) << back.status().message();
    EXPECT_EQ(back.value(), s);
  }
  auto kafka = decode_partition_state(tp, R"({"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]})");
  ASSERT_TRUE(kafka.is_ok()) << kafka.status().message();
  EXPECT_EQ(kafka.value(), (PartitionState{1, 0, 1, {1, 2, 3}, LeaderRecoveryState::kRecovered}));
  // An explicit RECOVERED (0) is accepted though Kafka never writes it.
  auto zero = decode_partition_state(
      tp, R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":[1],"leader_recovery_state":0})");
  ASSERT_TRUE(zero.is_ok());
  EXPECT_EQ(zero->leader_recovery_state, LeaderRecoveryState::kRecovered);
}

TEST(PartitionStateCodec, RejectsMalformedDocuments) {
  const TopicPartition tp("orders", 4);
  const std::string p = "/brokers/topics/orders/partitions/4/state: ";
  auto d = [&](const std::string& json) { return decode_partition_state(tp, json); };
  expect_error(d("null"), p + "expected a JSON object, got null");
  expect_error(d(R"({"version":2,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":[1]})"),
               p + "field 'version' is 2, supported: 1");
  expect_error(d(R"({"version":1,"leader_epoch":0,"controller_epoch":1,"isr":[1]})"), p + "field 'leader' is missing");
  expect_error(d(R"({"version":1,"leader":-2,"leader_epoch":0,"controller_epoch":1,"isr":[1]})"),
               p + "field 'leader' is -2, outside [-1, 2147483647]");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":-1,"controller_epoch":1,"isr":[1]})"),
               p + "field 'leader_epoch' is -1");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":"1","isr":[1]})"),
               p + "field 'controller_epoch' must be an integer, got string");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1})"), p + "field 'isr' is missing");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":{}})"),
               p + "field 'isr' must be an array, got object");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":[1,1]})"),
               p + "field 'isr' lists broker 1 twice");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":[true]})"),
               p + "field 'isr' must be an integer, got boolean");
  expect_error(d(R"({"version":1,"leader":1,"leader_epoch":0,"controller_epoch":1,"isr":[1],"leader_recovery_state":2})"),
               p + "field 'leader_recovery_state' is 2, outside [0, 1]");
}

// ---------------------------------------------------------------- controller

TEST(ControllerCodec, EncodesV1AndV2) {
  EXPECT_EQ(encode_controller({1, 1700000000000, std::nullopt}), R"({"version":1,"brokerid":1,"timestamp":"1700000000000"})");
  // What Kafka 3.4+ writes in ZooKeeper mode.
  EXPECT_EQ(encode_controller({1, 1700000000000, -1}),
            R"({"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1})");
}

TEST(ControllerCodec, DecodesV1AndV2) {
  auto v1 = decode_controller(R"({"version":1,"brokerid":2,"timestamp":"77"})");
  ASSERT_TRUE(v1.is_ok()) << v1.status().message();
  EXPECT_EQ(v1.value(), (ControllerRegistration{2, 77, std::nullopt}));
  auto v2 = decode_controller(R"({"version":2,"brokerid":3000,"timestamp":"5","kraftControllerEpoch":12})");
  ASSERT_TRUE(v2.is_ok()) << v2.status().message();
  EXPECT_EQ(v2.value(), (ControllerRegistration{3000, 5, 12}));
  for (const ControllerRegistration& c : {ControllerRegistration{0, 0, std::nullopt}, ControllerRegistration{9, 1, -1}}) {
    auto back = decode_controller(encode_controller(c));
    ASSERT_TRUE(back.is_ok());
    EXPECT_EQ(back.value(), c);
  }
}

TEST(ControllerCodec, RejectsMalformedDocuments) {
  expect_error(decode_controller("1"), "/controller: expected a JSON object, got number");
  expect_error(decode_controller(R"({"version":3,"brokerid":1,"timestamp":"1"})"),
               "/controller: field 'version' is 3, supported: 1, 2");
  expect_error(decode_controller(R"({"version":1,"timestamp":"1"})"), "/controller: field 'brokerid' is missing");
  expect_error(decode_controller(R"({"version":1,"brokerid":-1,"timestamp":"1"})"),
               "/controller: field 'brokerid' is -1, outside [0, 2147483647]");
  expect_error(decode_controller(R"({"version":1,"brokerid":1,"timestamp":1})"),
               "/controller: field 'timestamp' must be a string, got number");
  expect_error(decode_controller(R"({"version":1,"brokerid":1})"), "/controller: field 'timestamp' is missing");
  expect_error(decode_controller(R"({"version":2,"brokerid":1,"timestamp":"1","kraftControllerEpoch":-2})"),
               "/controller: field 'kraftControllerEpoch' is -2, outside [-1, 2147483647]");
}

// ------------------------------------------------- controller epoch, cluster id

TEST(ControllerEpochCodec, IsABareDecimal) {
  EXPECT_EQ(encode_controller_epoch(0), "0");
  EXPECT_EQ(encode_controller_epoch(17), "17");
  EXPECT_EQ(decode_controller_epoch("0").value(), 0);
  EXPECT_EQ(decode_controller_epoch("2147483647").value(), 2147483647);
  for (const char* bad : {"", "-1", "+1", "01", " 1", "1 ", "2147483648", "1x", "\"1\"", "1.0"}) {
    expect_error(decode_controller_epoch(bad), "/controller_epoch: \"");
  }
  expect_error(decode_controller_epoch("-1"), "/controller_epoch: \"-1\" is not a non-negative int32");
}

TEST(ClusterIdCodec, VersionIsTheString1) {
  EXPECT_EQ(encode_cluster_id("QzmL6NddQJ2WTqSNTtzqvw"), R"({"version":"1","id":"QzmL6NddQJ2WTqSNTtzqvw"})");
  EXPECT_EQ(decode_cluster_id(R"({"version":"1","id":"QzmL6NddQJ2WTqSNTtzqvw"})").value(), "QzmL6NddQJ2WTqSNTtzqvw");
  expect_error(decode_cluster_id(R"({"version":1,"id":"x"})"), "/cluster/id: field 'version' must be a string, got number");
  expect_error(decode_cluster_id(R"({"version":"2","id":"x"})"), "/cluster/id: field 'version' is \"2\", supported: \"1\"");
  expect_error(decode_cluster_id(R"({"version":"1"})"), "/cluster/id: field 'id' is missing");
  expect_error(decode_cluster_id(R"({"version":"1","id":""})"), "/cluster/id: field 'id' must not be empty");
  expect_error(decode_cluster_id(R"({"version":"1","id":5})"), "/cluster/id: field 'id' must be a string");
  expect_error(decode_cluster_id("garbage"), "/cluster/id: not valid JSON");
}

}  // namespace
}  // namespace spool::cluster
