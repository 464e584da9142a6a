// The one table of the APIs the broker serves: per API its request and
// response message types, the version range it serves (and advertises), its
// handler, the listeners it is allowed on and its family. Everything else
// is built from it: the ApiVersions answer, the dispatcher's lookup (no
// switch on API numbers anywhere), the request fuzzers (tests/fuzz/
// fuzz_request.cc, one target per ApiFamily) and their seed corpus
// (tests/fuzz/make_request_corpus.cc). Adding an API or a version is one
// line here plus its handler; the static_asserts in Api keep every range
// inside what the message definitions can encode.
//
// The rows (SPOOL_SERVED_APIS below) expand to a type list (ServedApis), so
// code that only needs the message types (the fuzzers) can walk it without
// linking the broker, and to ApiEntry values (handler_table.cc), its runtime
// form. Ranges follow PROTOCOL-NOTES.md: Produce advertises v0-2 although
// they are answered UNSUPPORTED_VERSION (librdkafka disables compression
// otherwise). Immutable static data; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "broker/listener.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/alter_partition_reassignments_request.h"
#include "protocol/alter_partition_reassignments_response.h"
#include "protocol/alter_partition_request.h"
#include "protocol/alter_partition_response.h"
#include "protocol/controlled_shutdown_request.h"
#include "protocol/controlled_shutdown_response.h"
#include "protocol/leader_and_isr_request.h"
#include "protocol/leader_and_isr_response.h"
#include "protocol/stop_replica_request.h"
#include "protocol/stop_replica_response.h"
#include "protocol/update_metadata_request.h"
#include "protocol/update_metadata_response.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"
#include "protocol/alter_client_quotas_request.h"
#include "protocol/alter_client_quotas_response.h"
#include "protocol/alter_user_scram_credentials_request.h"
#include "protocol/alter_user_scram_credentials_response.h"
#include "protocol/alter_configs_request.h"
#include "protocol/alter_configs_response.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/describe_producers_request.h"
#include "protocol/describe_producers_response.h"
#include "protocol/describe_topic_partitions_request.h"
#include "protocol/describe_topic_partitions_response.h"
#include "protocol/describe_transactions_request.h"
#include "protocol/describe_transactions_response.h"
#include "protocol/describe_client_quotas_request.h"
#include "protocol/describe_client_quotas_response.h"
#include "protocol/describe_user_scram_credentials_request.h"
#include "protocol/describe_user_scram_credentials_response.h"
#include "protocol/elect_leaders_request.h"
#include "protocol/elect_leaders_response.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_partition_reassignments_request.h"
#include "protocol/list_partition_reassignments_response.h"
#include "protocol/list_groups_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/list_transactions_request.h"
#include "protocol/list_transactions_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_delete_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"
#include "util/bytes.h"

namespace spool::broker {

// The family an API belongs to: what it acts on. Each family has one request
// fuzzer (tests/fuzz/fuzz_request.cc built per family); inter-broker APIs,
// and only they, are served on the inter-broker listener alone.
enum class ApiFamily : uint8_t {
  kData,         // produce, fetch and the offsets of data partitions
  kAdmin,        // metadata, topics, configs, log dirs, cluster description
  kGroups,       // the group coordinator
  kTxn,          // producer ids and the transaction coordinator
  kInterBroker,  // the controller's and the other brokers' requests
};
inline constexpr size_t kApiFamilyCount = 5;
static_assert(static_cast<size_t>(ApiFamily::kInterBroker) + 1 == kApiFamilyCount, "the last family is the count");
// "data", "admin", "groups", "txn", "inter_broker": the fuzz target suffixes.
constexpr std::string_view api_family_name(ApiFamily f) {
  constexpr std::string_view kNames[kApiFamilyCount] = {"data", "admin", "groups", "txn", "inter_broker"};
  return kNames[static_cast<size_t>(f)];
}

// How a request is authorized when an authorizer is configured
// (authorizer.class.name; without one nothing is checked):
enum class Authz : uint8_t {
  kNone,           // never: ApiVersions and the SASL exchange
  kInHandler,      // the handler checks what Kafka checks, per resource,
                   // answering Kafka's *_AUTHORIZATION_FAILED codes
  kClusterAction,  // the dispatcher requires CLUSTER_ACTION on the cluster
                   // (inter-broker and controller APIs); anyone else's
                   // connection is closed, logged
};

struct BrokerContext;
struct RequestContext;

// A handler decodes the body at ctx.version() and answers exactly once
// (handlers.h has the contract; one file per API family in this folder).
using ApiHandler = void (*)(BrokerContext& b, const RequestContext& ctx, ByteReader& body);

void handle_produce(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_offsets(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_find_coordinator(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_join_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_heartbeat(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_leave_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_sync_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_api_versions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_sasl_handshake(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_sasl_authenticate(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_client_quotas(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_client_quotas(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_user_scram_credentials(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_user_scram_credentials(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_create_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_records(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_init_producer_id(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_add_partitions_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_add_offsets_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_end_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_write_txn_markers(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_txn_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_create_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_log_dirs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_create_partitions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_elect_leaders(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_incremental_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_partition_reassignments(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_partition_reassignments(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_delete(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_cluster(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_producers(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_for_leader_epoch(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_topic_partitions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
// Inter-broker APIs (cluster mode only; handlers/interbroker_*.cc).
void handle_leader_and_isr(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_stop_replica(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_update_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_controlled_shutdown(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_partition(BrokerContext& b, const RequestContext& ctx, ByteReader& body);

// THE TABLE: one row per served API, ordered by api key (checked in
// handler_table.cc):
//   X(Name, min version, max version, handler, listeners, family, authz)
// Name is the message name without Request/Response; family is an ApiFamily
// and authz an Authz, both without their k. Every use below, and the runtime entries in
// handler_table.cc, expand these rows, so this list is the only place the
// facts about an API are written down.
#define SPOOL_SERVED_APIS(X) \
  X(Produce, 0, 13, handle_produce, kClientOnly, Data, InHandler)                                \
  X(Fetch, 4, 18, handle_fetch, kClientOnly, Data, InHandler)                                    \
  X(ListOffsets, 1, 11, handle_list_offsets, kClientOnly, Data, InHandler)                       \
  X(Metadata, 0, 13, handle_metadata, kClientOnly, Admin, InHandler)                             \
  X(LeaderAndIsr, 0, 7, handle_leader_and_isr, kInterBrokerOnly, InterBroker, ClusterAction)     \
  X(StopReplica, 0, 4, handle_stop_replica, kInterBrokerOnly, InterBroker, ClusterAction)        \
  X(UpdateMetadata, 0, 8, handle_update_metadata, kInterBrokerOnly, InterBroker, ClusterAction)  \
  X(ControlledShutdown, 0, 3, handle_controlled_shutdown, kInterBrokerOnly, InterBroker, ClusterAction) \
  X(OffsetCommit, 2, 10, handle_offset_commit, kClientOnly, Groups, InHandler)                   \
  X(OffsetFetch, 1, 10, handle_offset_fetch, kClientOnly, Groups, InHandler)                     \
  X(FindCoordinator, 0, 6, handle_find_coordinator, kClientOnly, Groups, InHandler)              \
  X(JoinGroup, 0, 9, handle_join_group, kClientOnly, Groups, InHandler)                          \
  X(Heartbeat, 0, 4, handle_heartbeat, kClientOnly, Groups, InHandler)                           \
  X(LeaveGroup, 0, 5, handle_leave_group, kClientOnly, Groups, InHandler)                        \
  X(SyncGroup, 0, 5, handle_sync_group, kClientOnly, Groups, InHandler)                          \
  X(DescribeGroups, 0, 6, handle_describe_groups, kClientOnly, Groups, InHandler)                \
  X(ListGroups, 0, 5, handle_list_groups, kClientOnly, Groups, InHandler)                        \
  X(SaslHandshake, 0, 1, handle_sasl_handshake, kClientOnly, Admin, None)                        \
  X(ApiVersions, 0, 5, handle_api_versions, kClientOnly, Admin, None)                            \
  X(CreateTopics, 2, 7, handle_create_topics, kClientOnly, Admin, InHandler)                     \
  X(DeleteTopics, 1, 6, handle_delete_topics, kClientOnly, Admin, InHandler)                     \
  X(DeleteRecords, 0, 2, handle_delete_records, kClientOnly, Data, InHandler)                    \
  X(InitProducerId, 0, 5, handle_init_producer_id, kClientOnly, Txn, InHandler)                  \
  X(OffsetForLeaderEpoch, 2, 4, handle_offset_for_leader_epoch, kClientOnly, Data, InHandler)    \
  X(AddPartitionsToTxn, 0, 5, handle_add_partitions_to_txn, kClientOnly, Txn, InHandler)         \
  X(AddOffsetsToTxn, 0, 4, handle_add_offsets_to_txn, kClientOnly, Txn, InHandler)               \
  X(EndTxn, 0, 4, handle_end_txn, kClientOnly, Txn, InHandler)                                   \
  X(WriteTxnMarkers, 1, 2, handle_write_txn_markers, kClientOnly, Txn, ClusterAction)            \
  X(TxnOffsetCommit, 0, 6, handle_txn_offset_commit, kClientOnly, Txn, InHandler)                \
  X(DescribeAcls, 1, 3, handle_describe_acls, kClientOnly, Admin, InHandler)                     \
  X(CreateAcls, 1, 3, handle_create_acls, kClientOnly, Admin, InHandler)                         \
  X(DeleteAcls, 1, 3, handle_delete_acls, kClientOnly, Admin, InHandler)                         \
  X(DescribeConfigs, 1, 4, handle_describe_configs, kClientOnly, Admin, InHandler)               \
  X(AlterConfigs, 0, 2, handle_alter_configs, kClientOnly, Admin, InHandler)                     \
  X(DescribeLogDirs, 1, 5, handle_describe_log_dirs, kClientOnly, Admin, InHandler)              \
  X(SaslAuthenticate, 0, 2, handle_sasl_authenticate, kClientOnly, Admin, None)                  \
  X(CreatePartitions, 0, 3, handle_create_partitions, kClientOnly, Admin, InHandler)             \
  X(DeleteGroups, 0, 3, handle_delete_groups, kClientOnly, Groups, InHandler)                    \
  X(ElectLeaders, 0, 2, handle_elect_leaders, kClientOnly, Admin, InHandler)                     \
  X(IncrementalAlterConfigs, 0, 1, handle_incremental_alter_configs, kClientOnly, Admin, InHandler) \
  X(AlterPartitionReassignments, 0, 1, handle_alter_partition_reassignments, kClientOnly, Admin, InHandler) \
  X(ListPartitionReassignments, 0, 0, handle_list_partition_reassignments, kClientOnly, Admin, InHandler) \
  X(OffsetDelete, 0, 0, handle_offset_delete, kClientOnly, Groups, InHandler)                    \
  X(DescribeClientQuotas, 0, 1, handle_describe_client_quotas, kClientOnly, Admin, InHandler)   \
  X(AlterClientQuotas, 0, 1, handle_alter_client_quotas, kClientOnly, Admin, InHandler)         \
  X(DescribeUserScramCredentials, 0, 0, handle_describe_user_scram_credentials, kClientOnly, Admin, InHandler) \
  X(AlterUserScramCredentials, 0, 0, handle_alter_user_scram_credentials, kClientOnly, Admin, InHandler) \
  X(AlterPartition, 0, 3, handle_alter_partition, kInterBrokerOnly, InterBroker, ClusterAction)  \
  X(DescribeCluster, 0, 2, handle_describe_cluster, kClientOnly, Admin, InHandler)               \
  X(DescribeProducers, 0, 0, handle_describe_producers, kClientOnly, Admin, InHandler)           \
  X(DescribeTransactions, 0, 0, handle_describe_transactions, kClientOnly, Txn, InHandler)       \
  X(ListTransactions, 0, 2, handle_list_transactions, kClientOnly, Txn, InHandler)               \
  X(DescribeTopicPartitions, 0, 0, handle_describe_topic_partitions, kClientOnly, Admin, InHandler) \
  /* end of the table */

// One row as a type: the message types and the range, checked against what
// the message definitions can encode. The handler is left out so that the
// fuzzers can walk the table without linking the broker (a function address
// in a template argument would be referenced even when unused).
template <typename Req, typename Resp, int16_t Min, int16_t Max, ListenerSet Listeners, ApiFamily Family,
          Authz Authorization>
struct Api {
  static_assert(Req::kApiKey == Resp::kApiKey);
  static_assert(Min >= Req::kMinVersion && Max <= Req::kMaxVersion && Min <= Max);
  static_assert(Min >= Resp::kMinVersion && Max <= Resp::kMaxVersion);
  static_assert(Req::kFirstFlexibleVersion == Resp::kFirstFlexibleVersion);
  static_assert((Listeners == kInterBrokerOnly) == (Family == ApiFamily::kInterBroker),
                "the inter-broker family is exactly the APIs served on the inter-broker listener alone");
  using Request = Req;
  using Response = Resp;
  static constexpr int16_t kApiKey = Req::kApiKey;
  static constexpr int16_t kMinVersion = Min;
  static constexpr int16_t kMaxVersion = Max;
  static constexpr int16_t kFirstFlexibleVersion = Req::kFirstFlexibleVersion;
  static constexpr std::string_view kName = Req::kApiName;
  static constexpr ListenerSet kListeners = Listeners;
  static constexpr ApiFamily kFamily = Family;
  static constexpr Authz kAuthz = Authorization;
};

template <typename... Apis>
struct ApiList {
  static constexpr size_t kSize = sizeof...(Apis);
};

namespace detail {
template <typename List>
struct DropFirst;
template <typename First, typename... Rest>
struct DropFirst<ApiList<First, Rest...>> {
  using type = ApiList<Rest...>;
};
#define SPOOL_API_TYPE(Name, Min, Max, Handler, Listeners, Family, Authorization)                            \
  , Api<protocol::Name##Request, protocol::Name##Response, Min, Max, Listeners, ApiFamily::k##Family, \
        Authz::k##Authorization>
}  // namespace detail

// The table as a type list (for templates: the fuzzer, the seed maker).
using ServedApis = detail::DropFirst<ApiList<void SPOOL_SERVED_APIS(SPOOL_API_TYPE)>>::type;
#undef SPOOL_API_TYPE

// Calls f.template operator()<A>() for every entry A, in table order.
template <typename F, typename... Apis>
constexpr void for_each_api(ApiList<Apis...>, F&& f) {
  (f.template operator()<Apis>(), ...);
}

// The runtime form of one entry.
struct ApiEntry {
  int16_t api_key;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible;  // INT16_MAX if the API has no flexible version
  std::string_view name;
  ApiHandler handler;
  ListenerSet listeners;
  Authz authz;
};

// Every entry, ordered by api key.
std::span<const ApiEntry> served_apis();
// nullptr if `key` is not served on listener `l`.
const ApiEntry* find_served_api(int16_t key, Listener l);
// The same for a listener playing several roles (a cluster member's one
// listener is both the client and the inter-broker listener, as Kafka's
// PLAINTEXT listener is when inter.broker.listener.name names it).
const ApiEntry* find_served_api(int16_t key, ListenerSet roles);

// The ApiVersions answer on listener `l`: error NONE, every range served
// there, throttle 0. Single-node brokers answer for kClient only, so the
// inter-broker rows are advertised only by cluster members.
protocol::ApiVersionsResponse make_api_versions_response(Listener l);
protocol::ApiVersionsResponse make_api_versions_response(ListenerSet roles);
// KIP-511 answer to an ApiVersions request above our max: response header v0
// + a v0 body with UNSUPPORTED_VERSION and ApiVersions' own range. Without
// the 4-byte size prefix (the net layer adds it).
Bytes encode_unsupported_api_versions(int32_t correlation_id, Listener l);
Bytes encode_unsupported_api_versions(int32_t correlation_id, ListenerSet roles);

}  // namespace spool::broker
