// CreatePartitions (v0-3) on a single node: a topic's partition count only
// grows; assignments (one per new partition) may only name this broker, with
// one replica each. Per-topic errors, like Kafka: UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_PARTITIONS, INVALID_REPLICA_ASSIGNMENT, INVALID_REQUEST for a topic
// listed twice (answered once). validate_only answers as if applied and changes nothing.
// Versions, as Kafka 4.4: v1 is v0, v2 is v1 flexible, v3 is v2 but may
// answer THROTTLING_QUOTA_EXCEEDED (KIP-599): Spool enforces no quotas, so
// it never does.
// Duplicates are answered on the reactor; lookups and growing run on the
// admin executor (broker/admin_executor.h), which answers.
#include <map>
#include <optional>
#include <set>

#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

using Topic = protocol::CreatePartitionsRequest::CreatePartitionsTopic;

Status check_assignments(BrokerContext& b, const Topic& t, int32_t current) {
  if (!t.assignments) return Status::ok();
  auto err = [](std::string m) {
    return Status::error(std::move(m), static_cast<int16_t>(ErrorCode::kInvalidReplicaAssignment));
  };
  // Only meaningful when the count grows; the count check reports the rest.
  if (t.count <= current) return Status::ok();
  const auto added = static_cast<int64_t>(t.count) - current;
  if (static_cast<int64_t>(t.assignments->size()) != added)
    return err("Increasing the number of partitions by " + std::to_string(added) + " but " +
               std::to_string(t.assignments->size()) + " assignments provided.");
  for (const auto& a : *t.assignments) {
    if (a.broker_ids.size() != 1 || a.broker_ids[0] != b.settings.broker_id)
      return err("each new partition must be assigned to exactly this broker (" +
                 std::to_string(b.settings.broker_id) + ")");
  }
  return Status::ok();
}

// Cluster mode (Kafka's ZkAdminManager.createPartitions): the new
// partitions' replicas come from cluster::assign_new_partitions (Kafka's
// continuation of the round-robin, or the request's explicit lists checked
// against the live brokers), and /brokers/topics/T is rewritten with them
// (the controller then creates them). Answered without waiting for leaders
// (Kafka waits up to timeout_ms; clients then see LEADER_NOT_AVAILABLE for a
// moment).
Status grow_in_cluster(BrokerContext& b, const Topic& t, bool validate_only) {
  auto existing = read_topic_assignment(*b.cluster, t.name);
  if (!existing) return existing.status();
  std::optional<std::vector<std::vector<int32_t>>> explicit_lists;
  if (t.assignments) {
    explicit_lists.emplace();
    for (const auto& a : *t.assignments) explicit_lists->push_back(a.broker_ids);
  }
  auto added = cluster::assign_new_partitions(t.name, *existing, t.count, explicit_lists,
                                              live_broker_metadata(*b.metadata));
  if (!added) return added.status();
  if (validate_only) return Status::ok();
  cluster::TopicAssignment grown = *existing;
  for (const auto& [p, replicas] : *added) grown.partitions[p].replicas = replicas;
  return write_topic_assignment(*b.cluster, t.name, grown);
}

}  // namespace

void handle_create_partitions(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto req = std::make_shared<protocol::CreatePartitionsRequest>();
  if (!decode_or_close(ctx, body, *req, "CreatePartitions")) return;
  std::map<std::string, int> seen;
  for (const auto& t : req->topics) seen[t.name]++;

  // Duplicates are answered here; the rest (lookups, growing) on the admin
  // executor. pending[i] is the request topic of resp.results[i], or null.
  struct Job {
    protocol::CreatePartitionsResponse resp;
    std::vector<const Topic*> pending;
  };
  auto job = std::make_shared<Job>();
  std::set<std::string> answered_duplicates;
  bool any = false;
  for (const auto& t : req->topics) {
    // A name listed more than once gets one INVALID_REQUEST answer, as Kafka.
    if (seen[t.name] > 1 && !answered_duplicates.insert(t.name).second) continue;
    auto& r = job->resp.results.emplace_back();
    r.name = t.name;
    if (seen[t.name] > 1) {
      r.error_code = ErrorCode::kInvalidRequest;
      r.error_message = "Duplicate topic name.";
      job->pending.push_back(nullptr);
      continue;
    }
    if (!topic_allowed(b, ctx, security::AclOperation::kAlter, t.name)) {  // Kafka's check
      r.error_code = ErrorCode::kTopicAuthorizationFailed;
      r.error_message = "Authorization failed.";
      job->pending.push_back(nullptr);
      continue;
    }
    job->pending.push_back(&t);
    any = true;
  }
  if (!any) {
    ctx.respond(job->resp);
    return;
  }
  run_admin_job(
      b, "CreatePartitions",
      [&b, ctx, req, job] {
        for (size_t i = 0; i < job->pending.size(); ++i) {
          const Topic* t = job->pending[i];
          if (t == nullptr) continue;
          auto& r = job->resp.results[i];
          auto fail = [&](const Status& s) {
            r.error_code = static_cast<ErrorCode>(s.kafka_code());
            r.error_message = s.message();
          };
          if (b.cluster != nullptr) {
            if (Status s = grow_in_cluster(b, *t, req->validate_only); !s) {
              fail(s);
            } else {
              r.error_code = ErrorCode::kNone;
            }
            continue;
          }
          auto info = b.replicas.topic(t->name);
          if (!info) {
            fail(Status::error("unknown topic '" + t->name + "'",
                               static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition)));
            continue;
          }
          if (Status s = check_assignments(b, *t, info->partitions); !s) {
            fail(s);
            continue;
          }
          auto grown = b.replicas.create_partitions(t->name, t->count, req->validate_only);
          if (!grown) {
            fail(grown.status());
            continue;
          }
          r.error_code = ErrorCode::kNone;
        }
        ctx.respond(job->resp);
      },
      [ctx, req, job](const Status& s) {
        for (size_t i = 0; i < job->pending.size(); ++i) {
          if (job->pending[i] == nullptr) continue;
          job->resp.results[i].error_code = static_cast<ErrorCode>(s.kafka_code());
          job->resp.results[i].error_message = s.message();
        }
        ctx.respond(job->resp);
      });
}

}  // namespace spool::broker
