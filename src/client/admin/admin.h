// Admin: Spool's administrative client, the counterpart of Kafka's
// org.apache.kafka.clients.admin.Admin: topics, configs, partitions,
// records, groups and their offsets, the cluster (metadata, leader
// elections, reassignments, log dirs), transactions and producers, ACLs,
// SCRAM users and client quotas. The `spool` CLI's broker commands run on it.
//
// Files: admin.h (this facade), admin_config.cc (properties, creation),
// admin_routing.h/.cc (node choice, metadata and coordinator caches, the
// blocking call with retries), and one file per area: admin_cluster.cc,
// admin_topics.cc, admin_configs.cc, admin_groups.cc, admin_txn.cc,
// admin_acls.cc, admin_users.cc (SCRAM users and client quotas).
//
// Differences from Kafka's Admin: every method blocks and returns a Result
// instead of a KafkaFuture; requests and answers are the protocol messages
// (protocol/*_request.h, *_response.h), so per-resource errors stay in the
// answer for the caller to report, as Kafka's per-resource futures would.
// A method fails as a whole (Status with the Kafka error code) when the
// transport fails, when no version fits (UNSUPPORTED_VERSION), or when a
// whole-request error comes back.
//
// Routing, as Kafka's admin client does it: CreateTopics, DeleteTopics,
// CreatePartitions, ElectLeaders and partition reassignments go to the
// controller named by Metadata (any node when none is named); DeleteRecords,
// ListOffsets and DescribeProducers to each partition's leader (one request
// per leader, the answers merged); group requests to the group coordinator
// and DescribeTransactions to the transaction coordinator (FindCoordinator,
// cached); ListGroups and ListTransactions to every broker; BROKER and
// BROKER_LOGGER config resources to the broker they name; the rest to any
// node (the first bootstrap server). Versions are negotiated per node by the
// RequestSender (NetworkClient).
//
// Retries: NOT_CONTROLLER, NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE,
// NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and COORDINATOR_NOT_AVAILABLE
// (whole-request or per-resource) refresh the metadata or forget the
// coordinator, wait retry.backoff.ms and resend until default.api.timeout.ms
// has passed; then the last answer is returned as it is. Transport failures
// (NETWORK_EXCEPTION, REQUEST_TIMED_OUT) are not retried: the call fails.
//
// Threading: one thread at a time (Kafka's Admin is thread-safe; this one
// is not: guard it, or use one per thread). The sender's callbacks never
// block on it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/client_security.h"
#include "client/request_sender.h"
#include "config/properties.h"
#include "protocol/alter_client_quotas_request.h"
#include "protocol/alter_client_quotas_response.h"
#include "protocol/alter_partition_reassignments_request.h"
#include "protocol/alter_partition_reassignments_response.h"
#include "protocol/alter_user_scram_credentials_request.h"
#include "protocol/alter_user_scram_credentials_response.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/delete_groups_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"
#include "protocol/describe_client_quotas_request.h"
#include "protocol/describe_client_quotas_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/describe_groups_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/describe_producers_request.h"
#include "protocol/describe_producers_response.h"
#include "protocol/describe_transactions_response.h"
#include "protocol/describe_user_scram_credentials_request.h"
#include "protocol/describe_user_scram_credentials_response.h"
#include "protocol/elect_leaders_request.h"
#include "protocol/elect_leaders_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/list_offsets_response.h"
#include "protocol/list_partition_reassignments_request.h"
#include "protocol/list_partition_reassignments_response.h"
#include "protocol/list_transactions_response.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_delete_response.h"
#include "protocol/offset_fetch_response.h"
#include "util/status.h"

namespace spool::client {

class NetworkClient;

// From Kafka admin properties (admin_config()).
struct AdminConfig {
  std::vector<std::string> bootstrap_servers;  // bootstrap.servers (host:port, ...)
  std::string client_id = "spool-admin";       // client.id
  int32_t request_timeout_ms = 30000;          // request.timeout.ms: one request
  int32_t default_api_timeout_ms = 60000;      // default.api.timeout.ms: one method, retries included
  int32_t connect_timeout_ms = 10000;          // socket.connection.setup.timeout.ms
  int64_t retry_backoff_ms = 100;              // retry.backoff.ms
  std::shared_ptr<const ClientSecurity> security;  // security.protocol, sasl.*, ssl.* (null: PLAINTEXT)
};

// Reads the keys above; security keys through client_security(). Other keys
// are ignored, as Kafka's admin warns about unknown ones and carries on.
Result<AdminConfig> admin_config(const config::PropertyList& properties);

using TopicPartition = std::pair<std::string, int32_t>;

// One group in ListGroups answers (state "" when no broker said).
struct GroupListing {
  std::string group_id;
  std::string state;
  std::string protocol_type;
};

// DescribeGroups' answer for one group and the coordinator that gave it.
struct GroupDescribed {
  protocol::DescribeGroupsResponse::DescribedGroup group;
  Node coordinator;
};

// DescribeTransactions' answer for one id and its coordinator.
struct TransactionDescribed {
  protocol::DescribeTransactionsResponse::DescribedTransactionState state;
  Node coordinator;
};

class Admin {
 public:
  // Owns a NetworkClient built from the config (client id, timeouts, security).
  static Result<std::unique_ptr<Admin>> create(AdminConfig config);
  static Result<std::unique_ptr<Admin>> create(const config::PropertyList& properties);
  // On a sender the caller owns and keeps alive (tests: a fake).
  Admin(RequestSender& sender, AdminConfig config);
  ~Admin();
  Admin(const Admin&) = delete;
  Admin& operator=(const Admin&) = delete;

  // --- Cluster (admin_cluster.cc) ---
  // Metadata from any node: the named topics, or every topic (nullopt).
  // Refreshes the routing cache (brokers, controller, leaders) as a side effect.
  Result<protocol::MetadataResponse> metadata(std::optional<std::vector<std::string>> topics);
  // ElectLeaders v1+ (the election type) on the controller.
  Result<protocol::ElectLeadersResponse> elect_leaders(const protocol::ElectLeadersRequest& request);
  Result<protocol::AlterPartitionReassignmentsResponse> alter_partition_reassignments(
      const protocol::AlterPartitionReassignmentsRequest& request);
  Result<protocol::ListPartitionReassignmentsResponse> list_partition_reassignments(
      const protocol::ListPartitionReassignmentsRequest& request);
  // DescribeLogDirs on one broker (Kafka's describeLogDirs(brokers)).
  Result<protocol::DescribeLogDirsResponse> describe_log_dirs(int32_t broker_id,
                                                              const protocol::DescribeLogDirsRequest& request);

  // --- Topics, partitions, records (admin_topics.cc) ---
  // A topic with num_partitions or replication_factor -1 takes the broker's
  // defaults, which needs CreateTopics v4+.
  Result<protocol::CreateTopicsResponse> create_topics(const protocol::CreateTopicsRequest& request);
  Result<protocol::DeleteTopicsResponse> delete_topics(const protocol::DeleteTopicsRequest& request);
  Result<protocol::CreatePartitionsResponse> create_partitions(const protocol::CreatePartitionsRequest& request);
  // Per leader; a partition without a known leader answers
  // UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE without a request.
  Result<protocol::DeleteRecordsResponse> delete_records(const protocol::DeleteRecordsRequest& request);
  // ListOffsets v1+ at `timestamp` (-1 latest, -2 earliest, else ms) for
  // each partition, from its leader; every partition asked gets an answer.
  Result<std::map<TopicPartition, protocol::ListOffsetsResponse::ListOffsetsTopicResponse::ListOffsetsPartitionResponse>>
  list_offsets(const std::vector<TopicPartition>& partitions, int64_t timestamp);
  Result<protocol::DescribeProducersResponse> describe_producers(const protocol::DescribeProducersRequest& request);

  // --- Configs (admin_configs.cc) ---
  Result<protocol::DescribeConfigsResponse> describe_configs(const protocol::DescribeConfigsRequest& request);
  Result<protocol::IncrementalAlterConfigsResponse> incremental_alter_configs(
      const protocol::IncrementalAlterConfigsRequest& request);

  // --- Groups and their offsets (admin_groups.cc) ---
  // Every group on every broker; `states` filters (canonical names) on the
  // broker when it serves ListGroups v4, else here after DescribeGroups.
  Result<std::vector<GroupListing>> list_groups(const std::vector<std::string>& states);
  // DescribeGroups up to v5 (an unknown group reads as state Dead).
  Result<GroupDescribed> describe_group(const std::string& group);
  // OffsetFetch v2-7 for every partition the group has an offset for.
  Result<protocol::OffsetFetchResponse> list_group_offsets(const std::string& group);
  Result<protocol::DeleteGroupsResponse::DeletableGroupResult> delete_group(const std::string& group);
  // OffsetCommit v2-9 as an admin (generation -1, no member).
  Result<protocol::OffsetCommitResponse> alter_group_offsets(const std::string& group,
                                                             const std::map<TopicPartition, int64_t>& offsets);
  Result<protocol::OffsetDeleteResponse> delete_group_offsets(const std::string& group,
                                                              const std::vector<TopicPartition>& partitions);

  // --- Transactions (admin_txn.cc) ---
  // Every broker's answer merged (by transactional id); the first
  // whole-request error fails the call with its code.
  Result<protocol::ListTransactionsResponse> list_transactions(const std::vector<std::string>& states,
                                                               const std::vector<int64_t>& producer_ids);
  Result<TransactionDescribed> describe_transaction(const std::string& transactional_id);

  // --- ACLs (admin_acls.cc) ---
  Result<protocol::CreateAclsResponse> create_acls(const protocol::CreateAclsRequest& request);
  Result<protocol::DescribeAclsResponse> describe_acls(const protocol::DescribeAclsRequest& request);
  Result<protocol::DeleteAclsResponse> delete_acls(const protocol::DeleteAclsRequest& request);

  // --- SCRAM users and client quotas (admin_users.cc) ---
  Result<protocol::DescribeUserScramCredentialsResponse> describe_user_scram_credentials(
      const protocol::DescribeUserScramCredentialsRequest& request);
  Result<protocol::AlterUserScramCredentialsResponse> alter_user_scram_credentials(
      const protocol::AlterUserScramCredentialsRequest& request);
  Result<protocol::DescribeClientQuotasResponse> describe_client_quotas(
      const protocol::DescribeClientQuotasRequest& request);
  Result<protocol::AlterClientQuotasResponse> alter_client_quotas(const protocol::AlterClientQuotasRequest& request);

  const AdminConfig& config() const { return config_; }

 private:
  // Routing state and the blocking call (admin_routing.h / .cc).
  struct Cache {
    std::map<int32_t, Node> brokers;
    int32_t controller_id = -1;
    std::map<std::string, std::map<int32_t, int32_t>> leaders;  // topic -> partition -> leader
    std::map<std::string, int16_t> topic_errors;
    std::map<std::pair<int8_t, std::string>, Node> coordinators;  // (key type, key)
    bool known = false;
  };
  Result<Node> any_node();
  Result<Node> controller();
  Result<Node> broker(int32_t id);
  Result<Node> coordinator(int8_t key_type, const std::string& key);
  // Metadata for these topics (none: brokers and controller only).
  Status refresh_metadata(const std::vector<std::string>& topics);
  void absorb(const protocol::MetadataResponse& metadata);
  // The leader of each partition (refreshing metadata for their topics);
  // partitions without one get the error to report instead.
  struct LeaderSplit {
    std::map<int32_t, std::vector<TopicPartition>> by_leader;
    std::map<TopicPartition, protocol::ErrorCode> errors;
  };
  Result<LeaderSplit> split_by_leader(const std::vector<TopicPartition>& partitions);
  template <class Req, class Resp>
  Result<Reply<Resp>> call(const Node& node, const Req& request, SendOptions options = {});
  template <class Req, class Resp, class Target, class RetriableOf>
  Result<Reply<Resp>> call_retrying(Target target, const Req& request, RetriableOf retriable_of,
                                    SendOptions options = {});
  // Forgets what a retriable error says may have moved (a loading
  // coordinator stays: it is the right one, still busy).
  void forget_routes(protocol::ErrorCode code);
  void backoff() const;
  Admin(std::unique_ptr<NetworkClient> owned, AdminConfig config);

  AdminConfig config_;
  std::unique_ptr<NetworkClient> owned_;  // set by create()
  RequestSender& sender_;
  Cache cache_;
};

}  // namespace spool::client
