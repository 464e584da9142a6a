// CreateTopics (v2-7) on a single node: replication factor must be 1 (or -1 =
// default), assignments may only name this broker. (DeleteTopics is in
// delete_topics.cc.) The request is validated on the reactor; the topics that
// pass are created on the admin executor (broker/admin_executor.h), which
// answers; if it refuses the job they carry its error (REQUEST_TIMED_OUT when
// full, NOT_CONTROLLER at shutdown).
//
// CreateTopics per version, as Kafka 4.4 answers: v2-4 name, error and
// message per topic (v4: -1 partitions / replication factor take the broker
// defaults). v5 (first flexible) also answers, for a created topic and for a
// validate_only one, its partition count, replication factor and every topic
// config with its effective value, read-only false, source and sensitivity,
// sorted by name (Kafka's KIP-525 answer; TopicConfigErrorCode stays NONE:
// without ACLs nothing is withheld). A failed topic keeps the defaults: -1,
// -1 and an empty config list. v6 may answer THROTTLING_QUOTA_EXCEEDED in
// Kafka; Spool enforces no quotas, so it never does. v7 returns the topic id
// the registry assigned; a validate_only answer carries a fresh random id
// that names no topic, as Kafka's controller does.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "broker/topic_registry.h"
#include "config/describe.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

// Checks the parts of a CreatableTopic that depend on the cluster shape and
// returns the partition count to create, or an error status.
Result<int32_t> resolve_partitions(BrokerContext& b, const protocol::CreateTopicsRequest::CreatableTopic& t) {
  auto err = [](ErrorCode c, std::string m) { return Status::error(std::move(m), static_cast<int16_t>(c)); };
  if (!t.assignments.empty()) {
    if (t.num_partitions != -1 || t.replication_factor != -1)
      return err(ErrorCode::kInvalidRequest,
                 "both replica assignments and numPartitions/replicationFactor were given");
    std::set<int32_t> seen;
    for (const auto& a : t.assignments) {
      if (a.partition_index < 0 || !seen.insert(a.partition_index).second)
        return err(ErrorCode::kInvalidReplicaAssignment, "bad or duplicate partition in assignment");
      if (b.cluster != nullptr) continue;  // checked against the live brokers on the executor
      if (a.broker_ids.size() != 1 || a.broker_ids[0] != b.settings.broker_id)
        return err(ErrorCode::kInvalidReplicaAssignment,
                   "assignment must name exactly this broker (" + std::to_string(b.settings.broker_id) + ")");
    }
    if (*seen.rbegin() != static_cast<int32_t>(seen.size()) - 1)
      return err(ErrorCode::kInvalidReplicaAssignment, "assigned partitions must be 0..n-1");
    return static_cast<int32_t>(seen.size());
  }
  int16_t rf = t.replication_factor == -1 ? b.settings.default_replication_factor : t.replication_factor;
  if (rf <= 0) return err(ErrorCode::kInvalidReplicationFactor, "replication factor must be larger than 0");
  if (rf > 1 && b.cluster == nullptr)
    return err(ErrorCode::kInvalidReplicationFactor,
               "replication factor " + std::to_string(rf) + " is larger than the 1 available broker");
  int32_t n = t.num_partitions == -1 ? b.settings.num_partitions : t.num_partitions;
  if (n <= 0) return err(ErrorCode::kInvalidPartitions, "number of partitions must be larger than 0");
  return n;
}

using CreatedConfigs = std::vector<protocol::CreateTopicsResponse::CreatableTopicConfigs>;

// Every topic config of a topic created with `overrides`, sorted by name.
CreatedConfigs created_topic_configs(const config::BrokerConfigLayers& broker,
                                     const std::map<std::string, std::string>& overrides) {
  auto entries = config::describe_topic_config(broker, overrides);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  CreatedConfigs out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    auto& c = out.emplace_back();
    c.name = e.name;
    c.value = e.is_sensitive ? std::nullopt : e.value;
    c.read_only = e.read_only;
    c.config_source = static_cast<int8_t>(e.source);
    c.is_sensitive = e.is_sensitive;
  }
  return out;
}

struct ClusterCreate {
  protocol::CreateTopicsResponse::CreatableTopicResult* r;
  int32_t partitions;
  int16_t replication_factor;
  cluster::ReplicaAssignment assignment;  // explicit, or empty
  std::map<std::string, std::string> configs;
};

// Cluster mode (Kafka's ZkAdminManager.createTopics): replicas assigned over
// the live brokers of the metadata cache (rack-aware; an explicit
// assignment is validated against them), the topic written to ZooKeeper,
// then the answer waits, bounded by timeout_ms, until the cache shows a
// leader for every partition (DelayedCreatePartitions); past it
// REQUEST_TIMED_OUT, and the topic stays. timeout_ms <= 0 answers at once.
void create_in_cluster(BrokerContext& b, std::vector<ClusterCreate> creates, bool validate_only, int32_t timeout_ms,
                       std::function<void()> respond) {
  auto waiting = std::make_shared<std::vector<ClusterCreate>>();
  const std::set<int32_t> live = [&] {
    std::set<int32_t> ids;
    for (const auto& lb : b.metadata->live_brokers()) ids.insert(lb.id);
    return ids;
  }();
  for (auto& c : creates) {
    auto& r = *c.r;
    auto fail = [&](const Status& st) {
      r.error_code = static_cast<ErrorCode>(st.kafka_code());
      r.error_message = st.message();
    };
    // Name, partition count and configs: the single-node checks.
    if (auto checked = b.replicas.create_topic(r.name, c.partitions, c.configs, true); !checked) {
      fail(checked.status());
      continue;
    }
    cluster::ReplicaAssignment assignment = c.assignment;
    if (!assignment.empty()) {
      if (Status st = cluster::validate_replica_assignment(assignment, live); !st) {
        fail(st);
        continue;
      }
    } else {
      auto assigned = assign_over_live_brokers(*b.metadata, c.partitions, c.replication_factor);
      if (!assigned) {
        fail(assigned.status());
        continue;
      }
      assignment = std::move(*assigned);
    }
    TopicId id = random_topic_id();
    if (!validate_only) {
      auto created = create_topic_in_store(*b.cluster, r.name, assignment, c.configs);
      if (!created) {
        fail(created.status());
        continue;
      }
      id = *created;
    }
    r.error_code = ErrorCode::kNone;
    r.topic_id = id;
    r.num_partitions = static_cast<int32_t>(assignment.size());
    r.replication_factor = static_cast<int16_t>(assignment.begin()->second.size());
    if (auto layers = b.config_layers()) r.configs = created_topic_configs(*layers, c.configs);
    if (!validate_only) waiting->push_back(std::move(c));
  }
  if (waiting->empty() || timeout_ms <= 0) return respond();
  wait_for_cache(
      *b.cluster,
      [waiting](const cluster::MetadataCache& cache) {
        for (const auto& c : *waiting) {
          if (!topic_has_leaders(cache, c.r->name, c.r->num_partitions)) return false;
        }
        return true;
      },
      timeout_ms,
      [&b, waiting, respond](bool done) {
        if (!done) {
          for (auto& c : *waiting) {
            if (topic_has_leaders(*b.metadata, c.r->name, c.r->num_partitions)) continue;
            c.r->error_code = ErrorCode::kRequestTimedOut;
            c.r->error_message = "Topic '" + c.r->name + "' was created, but not every partition has a leader yet.";
          }
        }
        respond();
      });
}

}  // namespace

void handle_create_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::CreateTopicsRequest req;
  if (!decode_or_close(ctx, body, req, "CreateTopics")) return;
  // Validated here, on the reactor; the topics that pass are created by the
  // admin executor, which then answers.
  struct Job {
    protocol::CreateTopicsResponse resp;
    struct Create {
      size_t index = 0;  // into resp.topics
      int32_t partitions = 0;
      std::map<std::string, std::string> configs;
      int16_t replication_factor = 1;  // cluster mode (resolved: -1 = the default)
      cluster::ReplicaAssignment assignment;  // cluster mode: explicit assignment, if any
    };
    std::vector<Create> creates;
  };
  auto job = std::make_shared<Job>();
  auto& resp = job->resp;
  std::map<std::string, int> seen;
  for (const auto& t : req.topics) seen[t.name]++;
  std::set<std::string> answered_duplicates;
  for (const auto& t : req.topics) {
    // A name listed more than once gets one INVALID_REQUEST answer, as Kafka.
    if (seen[t.name] > 1 && !answered_duplicates.insert(t.name).second) continue;
    auto& r = resp.topics.emplace_back();
    r.name = t.name;
    r.configs.emplace();  // Kafka's default: an empty list, not null
    auto set_error = [&](ErrorCode c, const std::string& m) {
      r.error_code = c;
      r.error_message = m;
    };
    if (seen[t.name] > 1) {
      set_error(ErrorCode::kInvalidRequest, "Duplicate topic name.");
      continue;
    }
    if (!create_allowed(b, ctx, t.name)) {  // Kafka's check: CREATE on the cluster or the topic
      set_error(ErrorCode::kTopicAuthorizationFailed, "Authorization failed.");
      continue;
    }
    if (t.name == kConsumerOffsetsTopic) {
      // The broker creates it on first use with offsets.topic.* settings.
      set_error(ErrorCode::kInvalidRequest,
                "internal topic " + t.name + " is created by the broker on first use");
      continue;
    }
    auto parts = resolve_partitions(b, t);
    if (!parts) {
      set_error(static_cast<ErrorCode>(parts.status().kafka_code()), parts.status().message());
      continue;
    }
    std::map<std::string, std::string> configs;
    bool null_config = false;
    for (const auto& c : t.configs) {
      if (!c.value) {
        null_config = true;
        break;
      }
      configs[c.name] = *c.value;
    }
    if (null_config) {
      set_error(ErrorCode::kInvalidConfig, "null config value");
      continue;
    }
    Job::Create create;
    create.index = resp.topics.size() - 1;
    create.partitions = *parts;
    create.configs = std::move(configs);
    create.replication_factor = t.replication_factor == -1 ? b.settings.default_replication_factor
                                                           : t.replication_factor;
    for (const auto& a : t.assignments) create.assignment[a.partition_index] = a.broker_ids;
    job->creates.push_back(std::move(create));
  }
  if (job->creates.empty()) {
    ctx.respond(resp);
    return;
  }
  const bool validate_only = req.validate_only;
  run_admin_job(
      b, "CreateTopics",
      [&b, ctx, job, validate_only, timeout_ms = req.timeout_ms] {
        if (b.cluster != nullptr) {
          std::vector<ClusterCreate> creates;
          for (auto& c : job->creates)
            creates.push_back({&job->resp.topics[c.index], c.partitions, c.replication_factor, c.assignment, c.configs});
          // job owns the response the pointers point into; it outlives the wait.
          return create_in_cluster(b, std::move(creates), validate_only, timeout_ms, [ctx, job] { ctx.respond(job->resp); });
        }
        for (auto& c : job->creates) {
          auto& r = job->resp.topics[c.index];
          auto created = b.replicas.create_topic(r.name, c.partitions, c.configs, validate_only);
          if (!created) {
            r.error_code = static_cast<ErrorCode>(created.status().kafka_code());
            r.error_message = created.status().message();
            continue;
          }
          r.error_code = ErrorCode::kNone;
          r.topic_id = validate_only ? random_topic_id() : created->id;
          r.num_partitions = created->partitions;
          r.replication_factor = 1;
          if (auto layers = b.config_layers()) {
            r.configs = created_topic_configs(*layers, c.configs);
          } else {
            r.topic_config_error_code = ErrorCode::kUnknownServerError;  // never in a running broker
          }
        }
        ctx.respond(job->resp);
      },
      [ctx, job](const Status& s) {
        for (auto& c : job->creates) {
          auto& r = job->resp.topics[c.index];
          r.error_code = static_cast<ErrorCode>(s.kafka_code());
          r.error_message = s.message();
        }
        ctx.respond(job->resp);
      });
}

}  // namespace spool::broker
