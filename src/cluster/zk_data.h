// zk_data: the JSON documents of Kafka's ZooKeeper layout (ZkData.scala) as
// value types with encoders and decoders, so Spool's znodes are the bytes a
// Kafka 3.x broker would write and read. The format of every node, with its
// mode and who writes and watches it, is docs/zookeeper-layout.md; the paths
// are in zk_paths.h.
//
// Contract
// - Encoders are pure and never fail: they write compact JSON (no spaces,
//   like Jackson) with Kafka's field names, version numbers and its
//   string-vs-number quirks (timestamps and producer-id bounds are strings,
//   /cluster/id's version is the string "1"). Keys appear in the order
//   Kafka's source lists them; Kafka itself emits some documents in hash-map
//   order, which no reader depends on. Invalid UTF-8 in a string is replaced
//   (U+FFFD), never thrown.
// - Decoders never throw and never crash: a document that is not JSON, nests
//   too deep, has a wrong type, misses a field, holds a negative or
//   out-of-range id, repeats a replica or carries an unknown version comes
//   back as an error Status whose message starts with the znode path and
//   names the field ("/brokers/ids/3: field 'port' ..."). Unknown extra
//   fields are ignored, as Kafka does. Decoders are stricter than Kafka's
//   (which mostly trust ZooKeeper); each rule is listed in the doc.
// - Broker ids, partition ids and epochs are int32 >= 0 unless stated
//   (leader -1 = none). Version fields accepted per document are listed
//   below; encoders write the newest one Spool speaks.
// Stateless, thread-safe. files: zk_data.cc (brokers, topics, partition
// state, controller, cluster id, controller epoch), zk_data_admin.cc (admin,
// notifications, configs, producer-id block, features), zk_data_json.h
// (internal JSON helpers).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::cluster {

// A topic id: 16 bytes, the same type as broker::TopicId, protocol::Uuid and
// storage::Uuid (all std::array<uint8_t, 16>), so values pass between them
// without conversion. In JSON it is Kafka's Uuid.toString: url-safe base64
// without padding, 22 characters (storage::uuid_to_text).
using TopicId = std::array<uint8_t, 16>;
// Kafka's Uuid text; decoding also accepts the 24-character "==" padded
// form (Java's Base64 decoder does). nullopt for anything else.
std::string topic_id_to_text(const TopicId& id);
std::optional<TopicId> topic_id_from_text(std::string_view text);
// A new random id as Kafka's Uuid.randomUuid makes one: 128 random bits
// with the UUID v4 version/variant bits, drawn again while the text form
// would start with '-' (so command lines never read it as an option). The
// cluster id is topic_id_to_text of one. `random` supplies 64-bit draws (a
// seeded engine in tests); after 100 unlucky draws the top bit of the first
// byte is cleared instead, so a constant source still terminates.
TopicId make_topic_id(const std::function<uint64_t()>& random);

inline constexpr int32_t kNoLeader = -1;

// ---------------------------------------------------------------- /brokers/ids/N

struct EndPoint {
  std::string listener;           // listener name, upper case ("PLAINTEXT", "INTERNAL")
  std::string host;               // empty = all interfaces (Kafka's null host)
  int32_t port = 0;               // 0..65535
  std::string security_protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
  bool operator==(const EndPoint&) const = default;
};
// "L://h:p", with an IPv6 host in brackets ("L://[::1]:9092"), as Kafka's
// EndPoint.connectionString.
std::string endpoint_connection_string(const EndPoint& ep);

struct SupportedFeature {
  int16_t min_version = 0;
  int16_t max_version = 0;
  bool operator==(const SupportedFeature&) const = default;
};

struct BrokerRegistration {
  int32_t id = 0;                     // from the path, not the JSON
  int32_t version = 5;                // 5 (IBP >= 2.7) or 4
  std::vector<EndPoint> endpoints;    // at least one; listener names distinct
  std::optional<std::string> rack;    // broker.rack
  int32_t jmx_port = -1;
  int64_t timestamp_ms = 0;           // written as a decimal string
  std::map<std::string, SupportedFeature> features;  // v5 only
  bool operator==(const BrokerRegistration&) const = default;
};
// v5 (or v4 when version == 4: no features). Top-level host/port are the
// first PLAINTEXT endpoint's, else null/-1.
std::string encode_broker(const BrokerRegistration& broker);
// Accepts v4 and v5. Endpoints are resolved through
// listener_security_protocol_map; a listener missing from it is an error.
Result<BrokerRegistration> decode_broker(int32_t id, std::string_view json);

// ------------------------------------------------------------ /brokers/topics/T

struct PartitionReplicas {
  std::vector<int32_t> replicas;  // full replica set, preferred leader first
  std::vector<int32_t> adding;    // subset of replicas being added (KIP-455)
  std::vector<int32_t> removing;  // subset of replicas being removed
  bool operator==(const PartitionReplicas&) const = default;
};

struct TopicAssignment {
  std::optional<TopicId> topic_id;               // v3; absent in v1/v2
  std::map<int32_t, PartitionReplicas> partitions;  // partition id -> replicas
  bool operator==(const TopicAssignment&) const = default;
};
// v3; partitions in ascending order; adding/removing list only partitions
// with a non-empty set; topic_id only when set.
std::string encode_topic_assignment(const TopicAssignment& assignment);
// Accepts v1, v2 and v3. Every partition needs >= 1 replica, no duplicates;
// adding/removing must name known partitions, be subsets of its replicas
// and not overlap. A zero topic id is an error.
Result<TopicAssignment> decode_topic_assignment(std::string_view topic, std::string_view json);

// ------------------------------------------- /brokers/topics/T/partitions/P/state

enum class LeaderRecoveryState : int8_t { kRecovered = 0, kRecovering = 1 };

struct PartitionState {
  int32_t leader = kNoLeader;   // -1 = no leader
  int32_t leader_epoch = 0;
  int32_t controller_epoch = 0;
  std::vector<int32_t> isr;
  LeaderRecoveryState leader_recovery_state = LeaderRecoveryState::kRecovered;
  bool operator==(const PartitionState&) const = default;
};
// v1; "leader_recovery_state":1 only while recovering. The partition epoch
// is the znode's Stat::version, not part of the JSON.
std::string encode_partition_state(const PartitionState& state);
Result<PartitionState> decode_partition_state(const TopicPartition& tp, std::string_view json);

// ------------------------------------------------------------------ /controller

struct ControllerRegistration {
  int32_t broker_id = 0;
  int64_t timestamp_ms = 0;                       // written as a decimal string
  std::optional<int32_t> kraft_controller_epoch;  // v2 only (-1 = a ZK controller)
  bool operator==(const ControllerRegistration&) const = default;
};
// v1 when kraft_controller_epoch is unset (what Spool writes), else v2
// (Kafka 3.4+ writes v2 with -1).
std::string encode_controller(const ControllerRegistration& controller);
// Accepts v1 and v2 (kraftControllerEpoch optional, >= -1).
Result<ControllerRegistration> decode_controller(std::string_view json);

// ------------------------------------------------------------ /controller_epoch

// A bare decimal integer ("0", "17"); no JSON.
std::string encode_controller_epoch(int32_t epoch);
// Digits only, int32, >= 0.
Result<int32_t> decode_controller_epoch(std::string_view data);

// ------------------------------------------------------------------ /cluster/id

// {"version":"1","id":"..."}: version is a string here.
std::string encode_cluster_id(std::string_view id);
// version must be the string "1"; id a non-empty string.
Result<std::string> decode_cluster_id(std::string_view json);

// --------------------------------------------------------- /admin/delete_topics

// /admin/delete_topics/T holds no data: the child names are the topics.
// Returns them sorted and deduplicated, dropping empty names.
std::vector<std::string> topics_marked_for_deletion(const std::vector<std::string>& children);

// -------------------------------------------------- /admin/reassign_partitions

// {"version":1,"partitions":[{"topic","partition","replicas"}]} (deprecated
// since Kafka 2.4, still honoured by its controller).
using LegacyReassignment = std::map<TopicPartition, std::vector<int32_t>>;
std::string encode_reassign_partitions(const LegacyReassignment& reassignment);
// A partition listed twice, empty or repeated replicas are errors.
Result<LegacyReassignment> decode_reassign_partitions(std::string_view json);

// ------------------------ /admin/preferred_replica_election, /isr_change_notification/isr_change_N

// {"version":1,"partitions":[{"topic","partition"}]}, sorted.
std::string encode_preferred_replica_election(const std::set<TopicPartition>& partitions);
Result<std::set<TopicPartition>> decode_preferred_replica_election(std::string_view json);
std::string encode_isr_change(const std::set<TopicPartition>& partitions);
// path: the sequential node's path, for the error message.
Result<std::set<TopicPartition>> decode_isr_change(std::string_view path, std::string_view json);

// ------------------------------------ /log_dir_event_notification/log_dir_event_N

// {"version":1,"broker":N,"event":1} (1 = log dir failure, the only event).
inline constexpr int32_t kLogDirFailureEvent = 1;
std::string encode_log_dir_event(int32_t broker_id);
// Returns the broker id.
Result<int32_t> decode_log_dir_event(std::string_view path, std::string_view json);

// --------------------------------------------------------- /config/<type>/<name>

// {"version":1,"config":{"k":"v"}}: every value a string; keys sorted.
using EntityConfig = std::map<std::string, std::string>;
std::string encode_entity_config(const EntityConfig& config);
// path: the entity's path, for the error message.
Result<EntityConfig> decode_entity_config(std::string_view path, std::string_view json);

// ----------------------------------------------- /config/changes/config_change_N

// v2 {"version":2,"entity_path":"topics/T"}.
std::string encode_config_change(std::string_view entity_path);
// Accepts v2, and v1 {"version":1,"entity_type":"topics","entity_name":"T"}
// (returned as "topics/T"). Returns the entity path.
Result<std::string> decode_config_change(std::string_view path, std::string_view json);

// ------------------------------- /kafka-acl/<Type>/<name>, /kafka-acl-extended/...

// One entry of a resource's ACL node, in Kafka's text forms (kept as text
// here; security/acl_text.h maps them): {"principal":"User:alice",
// "permissionType":"Allow","operation":"Read","host":"*"}.
struct ZkAclEntry {
  std::string principal;
  std::string permission_type;
  std::string operation;
  std::string host;
  auto operator<=>(const ZkAclEntry&) const = default;
};
// {"version":1,"acls":[...]}.
std::string encode_acl_node(const std::vector<ZkAclEntry>& acls);
// path: the node's path, for the error message. Every field a string.
Result<std::vector<ZkAclEntry>> decode_acl_node(std::string_view path, std::string_view json);
// The change notifications: a LITERAL resource as "TOPIC:name" (Kafka's
// legacy form), any other as {"version":1,"resourceType":"TOPIC","name":
// "n","patternType":"PREFIXED"}. Readers only need that a change happened.
std::string encode_literal_acl_change(std::string_view resource_type, std::string_view name);
std::string encode_extended_acl_change(std::string_view resource_type, std::string_view name,
                                       std::string_view pattern_type);

// ----------------------------------------------------- /latest_producer_id_block

struct ProducerIdBlock {
  int32_t broker = 0;       // the broker that took the block
  int64_t block_start = 0;  // first id of the block, written as a string
  int64_t block_end = 0;    // last id (inclusive), written as a string
  bool operator==(const ProducerIdBlock&) const = default;
};
std::string encode_producer_id_block(const ProducerIdBlock& block);
// v1; 0 <= start <= end, and the block size must fit an int32 (Kafka's
// Math.toIntExact).
Result<ProducerIdBlock> decode_producer_id_block(std::string_view json);

// ------------------------------------------------------------------- /feature

struct FeatureZNode {
  int32_t version = 2;  // 1 (max and min levels) or 2 (max only, IBP 3.3+)
  bool enabled = true;  // status 1 = enabled, 0 = disabled
  std::map<std::string, int16_t> features;  // finalized max version level, >= 1
  bool operator==(const FeatureZNode&) const = default;
};
std::string encode_feature(const FeatureZNode& node);
Result<FeatureZNode> decode_feature(std::string_view json);

}  // namespace spool::cluster
