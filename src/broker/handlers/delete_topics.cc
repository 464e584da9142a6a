// DeleteTopics v1-6 on a single node.
// - delete.topic.enable=false: TOPIC_DELETION_DISABLED (v3+; INVALID_REQUEST
//   before, as Kafka) for every topic.
// - v4 flexible; v5 ErrorMessage (Kafka's default message for the code).
// - v6 (KIP-516): each topic by Name or by TopicId. Both given, or neither:
//   INVALID_REQUEST with Kafka's message; an id no topic has (a deleted and
//   re-created topic has a new one): UNKNOWN_TOPIC_ID with a null name. The
//   answer names each topic and gives its id (zero when unknown).
// An unknown name is UNKNOWN_TOPIC_OR_PARTITION, an illegal one too (as
// Kafka's controller: it only looks the name up). __consumer_offsets cannot
// be deleted here (see README, differences from Kafka).
// The request's shape is checked on the reactor; lookups and deletion run on
// the admin executor (broker/admin_executor.h), which answers.
#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_lookup.h"
#include "broker/topic_name.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/error_code.h"
#include "cluster/metadata_cache.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

const char* default_message(ErrorCode e) {
  switch (e) {
    case ErrorCode::kUnknownTopicOrPartition: return "This server does not host this topic-partition.";
    case ErrorCode::kUnknownTopicId: return "This server does not host this topic ID.";
    case ErrorCode::kTopicDeletionDisabled: return "Topic deletion is disabled.";
    default: return nullptr;
  }
}

struct Job {
  protocol::DeleteTopicsResponse resp;
  std::vector<size_t> pending;  // into resp.responses
};

// Cluster mode (Kafka's ZooKeeper-mode deleteTopics): each topic the store
// holds is marked in /admin/delete_topics; the controller deletes it (every
// replica gets StopReplica with delete). The answer waits, bounded by the
// request's timeout, until this broker's metadata cache no longer lists the
// topics (Kafka's DelayedDeleteTopics); past it REQUEST_TIMED_OUT, though
// the deletion goes on.
void cluster_delete(BrokerContext& b, Job& job, const std::function<void()>& respond, int32_t timeout_ms) {
  auto pending = std::make_shared<std::vector<std::pair<size_t, std::string>>>();
  for (size_t i : job.pending) {
    auto& r = job.resp.responses[i];
    auto fail = [&](ErrorCode e) {
      r.error_code = e;
      if (const char* m = default_message(e)) r.error_message = m;
    };
    std::string name;
    if (r.name) {
      name = *r.name;
    } else {
      name = b.metadata->topic_name(r.topic_id).value_or("");
      if (name.empty()) {
        fail(ErrorCode::kUnknownTopicId);
        continue;
      }
      r.name = name;
    }
    auto assignment = read_topic_assignment(*b.cluster, name);
    if (!assignment) {
      fail(static_cast<ErrorCode>(assignment.status().kafka_code()));
      continue;
    }
    if (assignment->topic_id) r.topic_id = *assignment->topic_id;
    Status s = mark_topic_for_deletion(*b.cluster, name);
    if (!s) {
      r.error_code = static_cast<ErrorCode>(s.kafka_code());
      r.error_message = s.message();
      continue;
    }
    r.error_code = ErrorCode::kNone;
    pending->emplace_back(i, name);
  }
  if (pending->empty() || timeout_ms <= 0) return respond();
  auto* resp = &job.resp;
  wait_for_cache(
      *b.cluster,
      [pending](const cluster::MetadataCache& cache) {
        for (const auto& [i, name] : *pending) {
          if (cache.contains_topic(name)) return false;
        }
        return true;
      },
      timeout_ms,
      [resp, pending, respond, &b](bool done) {
        if (!done) {
          for (const auto& [i, name] : *pending) {
            if (!b.metadata->contains_topic(name)) continue;
            resp->responses[i].error_code = ErrorCode::kRequestTimedOut;
            resp->responses[i].error_message = "Topic deletion of '" + name + "' did not complete in time.";
          }
        }
        respond();
      });
}

}  // namespace

void handle_delete_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DeleteTopicsRequest req;
  if (!decode_or_close(ctx, body, req, "DeleteTopics")) return;
  const int16_t v = ctx.version();
  const protocol::Uuid kNoId{};
  // v6 names topics in `topics`; before, in `topic_names`.
  std::vector<protocol::DeleteTopicsRequest::DeleteTopicState> wanted;
  if (v >= 6) {
    wanted = req.topics;
  } else {
    for (const auto& n : req.topic_names) wanted.push_back({n, kNoId});
  }

  // The request's shape is checked here; looking topics up and deleting
  // them is the admin executor's job (after earlier lifecycle requests).
  auto job = std::make_shared<Job>();
  for (const auto& t : wanted) {
    auto& r = job->resp.responses.emplace_back();
    r.name = t.name;
    r.topic_id = t.topic_id;
    auto fail = [&](ErrorCode e, const char* message) {
      r.error_code = e;
      const char* m = message ? message : default_message(e);
      if (m) r.error_message = m;
    };
    if (!b.settings.delete_topic_enable) {
      fail(v < 3 ? ErrorCode::kInvalidRequest : ErrorCode::kTopicDeletionDisabled, nullptr);
      continue;
    }
    if (t.name && t.topic_id != kNoId) {
      fail(ErrorCode::kInvalidRequest, "You may not specify both topic name and topic id.");
      continue;
    }
    if (!t.name && t.topic_id == kNoId) {
      fail(ErrorCode::kInvalidRequest, "Neither topic name nor id were specified.");
      continue;
    }
    // Kafka's check: DELETE on the topic (named, or resolved from its id;
    // an id nobody knows is answered by the lookup below).
    std::optional<std::string> name = t.name ? t.name : topic_name_by_id(b, t.topic_id);
    if (name && !topic_allowed(b, ctx, security::AclOperation::kDelete, *name)) {
      fail(ErrorCode::kTopicAuthorizationFailed, nullptr);
      continue;
    }
    job->pending.push_back(job->resp.responses.size() - 1);
  }
  auto respond = [ctx, v, job] {
    if (v < 5) {
      for (auto& r : job->resp.responses) r.error_message.reset();
    }
    ctx.respond(job->resp);
  };
  if (job->pending.empty()) return respond();
  run_admin_job(
      b, "DeleteTopics",
      [&b, job, respond, timeout_ms = req.timeout_ms] {
        if (b.cluster != nullptr) return cluster_delete(b, *job, respond, timeout_ms);
        for (size_t i : job->pending) {
          auto& r = job->resp.responses[i];
          auto fail = [&](ErrorCode e) {
            r.error_code = e;
            if (const char* m = default_message(e)) r.error_message = m;
          };
          std::string name;
          if (r.name) {
            name = *r.name;
            auto info = b.replicas.topic(name);
            if (!info) {
              fail(ErrorCode::kUnknownTopicOrPartition);
              continue;
            }
            r.topic_id = info->id;
          } else {
            auto info = b.registry.get_by_id(r.topic_id);
            if (!info) {
              fail(ErrorCode::kUnknownTopicId);
              continue;
            }
            name = info->name;
            r.name = name;
          }
          Status s = b.replicas.delete_topic(name);
          if (s) {
            r.error_code = ErrorCode::kNone;
          } else {
            fail(static_cast<ErrorCode>(s.kafka_code()));
            if (!r.error_message) r.error_message = s.message();
          }
        }
        respond();
      },
      [job, respond](const Status& s) {
        for (size_t i : job->pending) {
          auto& r = job->resp.responses[i];
          r.error_code = static_cast<ErrorCode>(s.kafka_code());
          r.error_message = s.message();
        }
        respond();
      });
}

}  // namespace spool::broker
