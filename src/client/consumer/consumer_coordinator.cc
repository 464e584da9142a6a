// ConsumerCoordinator, part 1: coordinator discovery, the rebalance, the
// heartbeat and leaving (see consumer_coordinator.h).
#include "client/consumer/consumer_coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "protocol/error_code.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/join_group_request.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

Status group_error(ErrorCode code, const std::string& what) {
  return Status::error(what + ": " + std::string(protocol::error_name(code)), protocol::to_int(code));
}

std::vector<TopicPartition> sorted(const std::set<TopicPartition>& s) { return {s.begin(), s.end()}; }

}  // namespace

RebalanceProtocol common_protocol(const std::vector<std::unique_ptr<PartitionAssignor>>& assignors) {
  for (const auto& a : assignors) {
    auto p = a->supported_protocols();
    if (std::find(p.begin(), p.end(), RebalanceProtocol::kCooperative) == p.end()) return RebalanceProtocol::kEager;
  }
  return assignors.empty() ? RebalanceProtocol::kEager : RebalanceProtocol::kCooperative;
}

ConsumerCoordinator::ConsumerCoordinator(ConsumerContext& ctx, std::vector<std::unique_ptr<PartitionAssignor>> assignors)
    : ctx_(ctx), assignors_(std::move(assignors)), protocol_(common_protocol(assignors_)) {
  next_auto_commit_ms_ = ctx_.now() + ctx_.config.auto_commit_interval_ms;
}

PartitionAssignor* ConsumerCoordinator::assignor(const std::string& name) {
  for (auto& a : assignors_) {
    if (a->name() == name) return a.get();
  }
  return nullptr;
}

std::set<TopicPartition> ConsumerCoordinator::owned() const { return ctx_.subscriptions.assigned(); }

void ConsumerCoordinator::fail(Status s) {
  spdlog::warn("consumer: group {}: {}", ctx_.config.group_id.value_or(""), s.message());
  if (error_.is_ok()) error_ = std::move(s);
  ctx_.notify_progress();
}

Status ConsumerCoordinator::take_error() {
  Status e = std::move(error_);
  error_ = Status::ok();
  return e;
}

void ConsumerCoordinator::request_rejoin(const std::string& reason) {
  if (!rejoin_needed_) spdlog::info("consumer: request joining group due to: {}", reason);
  rejoin_needed_ = true;
}

void ConsumerCoordinator::on_subscription_change() {
  left_ = false;
  if (ctx_.subscriptions.has_auto_assigned()) request_rejoin("the subscription changed");
}

void ConsumerCoordinator::emit(RebalanceEvent::Kind kind, std::vector<TopicPartition> partitions,
                               std::function<void()> done) {
  if (kind != RebalanceEvent::Kind::kAssigned) {
    for (const TopicPartition& tp : partitions) {
      if (PartitionState* st = ctx_.subscriptions.state(tp)) st->pending_revocation = true;
    }
  }
  ++events_pending_;
  RebalanceEvent e;
  e.kind = kind;
  e.partitions = std::move(partitions);
  e.done = [this, done = std::move(done)] {
    --events_pending_;
    if (done) done();
  };
  ctx_.events.push_back(std::move(e));
  ctx_.notify_progress();
}

int64_t ConsumerCoordinator::poll() {
  const ConsumerConfig& cfg = ctx_.config;
  if (!cfg.group_id) return 1000;
  const int64_t now = ctx_.now();
  if (!coordinator_) {
    find_coordinator();
    return cfg.retry_backoff_ms;
  }
  int64_t wait = 1000;
  if (ctx_.subscriptions.has_auto_assigned()) {
    if (state_ == MemberState::kStable && last_app_poll_ms_ >= 0 && now - last_app_poll_ms_ > cfg.max_poll_interval_ms) {
      spdlog::warn(
          "consumer: consumer poll timeout has expired: the time between polls exceeded max.poll.interval.ms ({}); "
          "leaving the group",
          cfg.max_poll_interval_ms);
      if (!cfg.group_instance_id) send_leave("consumer poll timeout has expired.", {});
      reset_generation("consumer poll timeout has expired");
      last_app_poll_ms_ = -1;  // rejoin on the next poll()
    }
    if (state_ == MemberState::kStable && now - last_heartbeat_ok_ms_ > cfg.session_timeout_ms) {
      mark_coordinator_unknown("session timed out without receiving a heartbeat response");
      return cfg.retry_backoff_ms;
    }
    if (state_ == MemberState::kStable && ctx_.subscriptions.subscription() != joined_topics_) {
      request_rejoin("the subscribed topics changed");
    }
    if (state_ == MemberState::kStable && leader_metadata_changed()) {
      leader_counts_.clear();
      request_rejoin("cached metadata has changed");
    }
    if (leader_pending_ && state_ == MemberState::kSyncing) {
      auto pending = *leader_pending_;
      leader_assign(pending);
    }
    const bool want_join = state_ == MemberState::kUnjoined || (state_ == MemberState::kStable && rejoin_needed_);
    if (want_join && !left_ && last_app_poll_ms_ >= 0 && events_pending_ == 0 && now >= join_retry_ms_) prepare_join();
    if (state_ == MemberState::kStable && !heartbeat_in_flight_ && now >= next_heartbeat_ms_) send_heartbeat();
    if (state_ == MemberState::kStable) wait = std::min<int64_t>(wait, std::max<int64_t>(next_heartbeat_ms_ - now, 0));
  }
  maybe_fetch_initial_offsets();
  maybe_auto_commit();
  return wait;
}

void ConsumerCoordinator::find_coordinator() {
  const int64_t now = ctx_.now();
  if (find_in_flight_ || now < find_retry_ms_) return;
  auto snap = ctx_.metadata.snapshot();
  if (snap->brokers.empty()) {
    ctx_.metadata.request_update();
    return;
  }
  std::vector<Node> nodes;
  for (const auto& [id, n] : snap->brokers) nodes.push_back(n);
  const Node node = nodes[static_cast<size_t>(now) % nodes.size()];
  protocol::FindCoordinatorRequest req;
  req.key = *ctx_.config.group_id;
  req.key_type = 0;
  find_in_flight_ = true;
  SendOptions opts;
  opts.max_version = 3;  // 4+ batches keys
  auto post = ctx_.post;
  send_request<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(
      ctx_.network, node, std::move(req),
      [this, post](Result<Reply<protocol::FindCoordinatorResponse>> r) {
        post([this, r = std::move(r)] {
          find_in_flight_ = false;
          if (!r) {
            find_retry_ms_ = ctx_.now() + ctx_.config.retry_backoff_ms;
            ctx_.metadata.request_update();
            return;
          }
          const auto& m = r->message;
          if (m.error_code != ErrorCode::kNone) {
            find_retry_ms_ = ctx_.now() + ctx_.config.retry_backoff_ms;
            if (m.error_code == ErrorCode::kGroupAuthorizationFailed) {
              fail(group_error(m.error_code, "FindCoordinator for group " + *ctx_.config.group_id));
            }
            return;
          }
          if (m.port <= 0 || m.port > 65535) return;
          coordinator_ = Node{m.node_id, m.host, static_cast<uint16_t>(m.port)};
          spdlog::info("consumer: discovered group coordinator {}:{} (id {})", m.host, m.port, m.node_id);
          last_heartbeat_ok_ms_ = ctx_.now();
        });
      },
      opts);
}

void ConsumerCoordinator::mark_coordinator_unknown(const std::string& why) {
  if (!coordinator_) return;
  spdlog::info("consumer: group coordinator {}:{} is unavailable or invalid due to cause: {}; will attempt rediscovery",
               coordinator_->host, coordinator_->port, why);
  coordinator_.reset();
  if (state_ == MemberState::kStable) request_rejoin("the coordinator changed");
}

void ConsumerCoordinator::reset_generation(const std::string& why, bool reset_member_id) {
  spdlog::info("consumer: resetting generation {}due to: {}", reset_member_id ? "and member id " : "", why);
  generation_id_ = -1;
  if (reset_member_id) member_id_.clear();
  state_ = MemberState::kUnjoined;
  rejoin_needed_ = true;
  leader_pending_.reset();
}

void ConsumerCoordinator::prepare_join() {
  state_ = MemberState::kPreparing;
  auto revoke_then_join = [this] {
    const std::set<TopicPartition> mine = owned();
    auto drop = [this](std::set<TopicPartition> keep) {
      return [this, keep = std::move(keep)] {
        ctx_.subscriptions.assign_from_subscribed(keep);
        send_join();
      };
    };
    if (generation_id_ < 0 && !mine.empty()) {
      emit(RebalanceEvent::Kind::kLost, sorted(mine), drop({}));
      return;
    }
    if (protocol_ == RebalanceProtocol::kEager && !mine.empty()) {
      emit(RebalanceEvent::Kind::kRevoked, sorted(mine), drop({}));
      return;
    }
    std::set<TopicPartition> gone, keep;
    for (const TopicPartition& tp : mine) {
      (ctx_.subscriptions.subscription().count(tp.topic) > 0 ? keep : gone).insert(tp);
    }
    if (!gone.empty()) {
      emit(RebalanceEvent::Kind::kRevoked, sorted(gone), drop(keep));
      return;
    }
    send_join();
  };
  if (ctx_.config.enable_auto_commit && generation_id_ >= 0) {
    auto consumed = ctx_.subscriptions.all_consumed();
    if (!consumed.empty()) {
      commit(consumed, [revoke_then_join](Status s) {
        if (!s) spdlog::warn("consumer: offset commit before rebalance failed: {}", s.message());
        revoke_then_join();
      });
      return;
    }
  }
  revoke_then_join();
}

void ConsumerCoordinator::send_join() {
  const ConsumerConfig& cfg = ctx_.config;
  if (!coordinator_) {
    state_ = MemberState::kUnjoined;
    return;
  }
  state_ = MemberState::kJoining;
  joined_topics_ = ctx_.subscriptions.subscription();
  leader_counts_.clear();
  protocol::JoinGroupRequest req;
  req.group_id = *cfg.group_id;
  req.session_timeout_ms = cfg.session_timeout_ms;
  req.rebalance_timeout_ms = cfg.max_poll_interval_ms;
  req.member_id = member_id_;
  req.group_instance_id = cfg.group_instance_id;
  req.protocol_type = kConsumerProtocolType;
  for (auto& a : assignors_) {
    Subscription s;
    s.topics.assign(joined_topics_.begin(), joined_topics_.end());
    s.user_data = a->subscription_user_data(joined_topics_);
    s.owned_partitions = sorted(owned());
    s.generation_id = generation_id_;
    if (!cfg.client_rack.empty()) s.rack_id = cfg.client_rack;
    req.protocols.push_back({std::string(a->name()), encode_subscription(s)});
  }
  req.reason = rejoin_needed_ && generation_id_ >= 0 ? std::optional<std::string>("rebalance") : std::nullopt;
  rejoin_needed_ = false;
  SendOptions opts;
  opts.timeout_ms = std::max<int32_t>(cfg.request_timeout_ms, cfg.max_poll_interval_ms + 5000);
  auto post = ctx_.post;
  send_request<protocol::JoinGroupRequest, protocol::JoinGroupResponse>(
      ctx_.network, *coordinator_, std::move(req),
      [this, post](Result<Reply<protocol::JoinGroupResponse>> r) {
        post([this, r = std::move(r)]() mutable { on_join(r); });
      },
      opts);
}

void ConsumerCoordinator::on_join(Result<Reply<protocol::JoinGroupResponse>>& r) {
  if (state_ != MemberState::kJoining) return;
  const int64_t now = ctx_.now();
  auto retry_later = [&] {
    state_ = MemberState::kUnjoined;
    join_retry_ms_ = now + ctx_.config.retry_backoff_ms;
  };
  if (!r) {
    mark_coordinator_unknown(r.status().message());
    retry_later();
    return;
  }
  const protocol::JoinGroupResponse& m = r->message;
  switch (m.error_code) {
    case ErrorCode::kNone: {
      if (m.protocol_type && *m.protocol_type != kConsumerProtocolType) {
        fail(group_error(ErrorCode::kInconsistentGroupProtocol, "JoinGroup"));
        retry_later();
        return;
      }
      generation_id_ = m.generation_id;
      member_id_ = m.member_id;
      protocol_name_ = m.protocol_name.value_or("");
      if (assignor(protocol_name_) == nullptr) {
        fail(Status::error("the group chose assignor '" + protocol_name_ + "', which this member does not have",
                           protocol::to_int(ErrorCode::kInconsistentGroupProtocol)));
        retry_later();
        return;
      }
      spdlog::info("consumer: successfully joined group {} with generation {} as {} (leader {}, protocol {})",
                   *ctx_.config.group_id, generation_id_, member_id_, m.leader, protocol_name_);
      state_ = MemberState::kSyncing;
      if (m.leader == m.member_id && !m.skip_assignment) {
        leader_pending_ = m;
        leader_wait_until_ms_ = now + ctx_.config.request_timeout_ms / 2;
        leader_assign(m);
      } else {
        send_sync({});
      }
      return;
    }
    case ErrorCode::kMemberIdRequired:
      member_id_ = m.member_id;  // join again at once with the id the coordinator gave
      send_join();
      return;
    case ErrorCode::kUnknownMemberId:
    case ErrorCode::kIllegalGeneration:
      reset_generation(std::string("JoinGroup: ") + std::string(protocol::error_name(m.error_code)));
      return;
    case ErrorCode::kCoordinatorLoadInProgress:
    case ErrorCode::kRebalanceInProgress:
      retry_later();
      return;
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kNotCoordinator:
      mark_coordinator_unknown(std::string(protocol::error_name(m.error_code)));
      retry_later();
      return;
    default:
      fail(group_error(m.error_code, "JoinGroup of group " + *ctx_.config.group_id));
      state_ = MemberState::kUnjoined;
      join_retry_ms_ = now + ctx_.config.retry_backoff_max_ms;
      return;
  }
}

void ConsumerCoordinator::send_sync(std::map<std::string, Bytes> assignments) {
  if (!coordinator_) {
    state_ = MemberState::kUnjoined;
    return;
  }
  state_ = MemberState::kSyncing;
  protocol::SyncGroupRequest req;
  req.group_id = *ctx_.config.group_id;
  req.generation_id = generation_id_;
  req.member_id = member_id_;
  req.group_instance_id = ctx_.config.group_instance_id;
  req.protocol_type = kConsumerProtocolType;
  req.protocol_name = protocol_name_;
  for (auto& [member, bytes] : assignments) req.assignments.push_back({member, std::move(bytes)});
  auto post = ctx_.post;
  const int32_t generation = generation_id_;
  send_request<protocol::SyncGroupRequest, protocol::SyncGroupResponse>(
      ctx_.network, *coordinator_, std::move(req),
      [this, post, generation](Result<Reply<protocol::SyncGroupResponse>> r) {
        post([this, generation, r = std::move(r)] {
          if (state_ != MemberState::kSyncing || generation != generation_id_) return;
          if (!r) {
            mark_coordinator_unknown(r.status().message());
            state_ = MemberState::kUnjoined;
            return;
          }
          const auto& m = r->message;
          switch (m.error_code) {
            case ErrorCode::kNone:
              if (m.protocol_name && *m.protocol_name != protocol_name_) {
                fail(group_error(ErrorCode::kInconsistentGroupProtocol, "SyncGroup"));
                state_ = MemberState::kUnjoined;
                return;
              }
              on_sync_assignment(m.assignment);
              return;
            case ErrorCode::kRebalanceInProgress:
              state_ = MemberState::kUnjoined;
              return;
            case ErrorCode::kUnknownMemberId:
            case ErrorCode::kIllegalGeneration:
              reset_generation(std::string("SyncGroup: ") + std::string(protocol::error_name(m.error_code)),
                               m.error_code == ErrorCode::kUnknownMemberId);
              return;
            case ErrorCode::kCoordinatorNotAvailable:
            case ErrorCode::kNotCoordinator:
              mark_coordinator_unknown(std::string(protocol::error_name(m.error_code)));
              state_ = MemberState::kUnjoined;
              return;
            default:
              fail(group_error(m.error_code, "SyncGroup of group " + *ctx_.config.group_id));
              state_ = MemberState::kUnjoined;
              join_retry_ms_ = ctx_.now() + ctx_.config.retry_backoff_max_ms;
              return;
          }
        });
      });
}

void ConsumerCoordinator::on_sync_assignment(ByteSpan assignment_bytes) {
  Assignment assignment;
  if (!assignment_bytes.empty()) {
    auto a = decode_assignment(assignment_bytes);
    if (!a) {
      fail(Status::error("bad assignment from the group leader: " + a.status().message()));
      state_ = MemberState::kUnjoined;
      return;
    }
    assignment = std::move(*a);
  }
  assignor(protocol_name_)->on_assignment(assignment, generation_id_);
  const std::set<TopicPartition> assigned(assignment.partitions.begin(), assignment.partitions.end());
  std::set<TopicPartition> revoked;
  for (const TopicPartition& tp : owned()) {
    if (assigned.count(tp) == 0) revoked.insert(tp);
  }
  const int64_t now = ctx_.now();
  state_ = MemberState::kStable;
  rejoin_needed_ = false;
  last_heartbeat_ok_ms_ = now;
  next_heartbeat_ms_ = now + ctx_.config.heartbeat_interval_ms;
  next_auto_commit_ms_ = now + ctx_.config.auto_commit_interval_ms;
  spdlog::info("consumer: group {} generation {}: assigned {} partition(s), revoking {}", *ctx_.config.group_id,
               generation_id_, assigned.size(), revoked.size());
  if (!revoked.empty()) {
    emit(RebalanceEvent::Kind::kRevoked, sorted(revoked),
         [this, assigned, revoked] { apply_assignment(assigned, revoked); });
  } else {
    apply_assignment(assigned, {});
  }
}

void ConsumerCoordinator::apply_assignment(const std::set<TopicPartition>& assigned,
                                           const std::set<TopicPartition>& revoked) {
  std::vector<TopicPartition> added;
  for (const TopicPartition& tp : assigned) {
    if (!ctx_.subscriptions.is_assigned(tp)) added.push_back(tp);
  }
  ctx_.subscriptions.assign_from_subscribed(assigned);
  emit(RebalanceEvent::Kind::kAssigned, std::move(added), {});
  if (!revoked.empty() && protocol_ == RebalanceProtocol::kCooperative) {
    request_rejoin("need to revoke partitions and re-join");
  }
}

void ConsumerCoordinator::send_heartbeat() {
  heartbeat_in_flight_ = true;
  next_heartbeat_ms_ = ctx_.now() + ctx_.config.heartbeat_interval_ms;
  protocol::HeartbeatRequest req;
  req.group_id = *ctx_.config.group_id;
  req.generation_id = generation_id_;
  req.member_id = member_id_;
  req.group_instance_id = ctx_.config.group_instance_id;
  auto post = ctx_.post;
  const int32_t generation = generation_id_;
  send_request<protocol::HeartbeatRequest, protocol::HeartbeatResponse>(
      ctx_.network, *coordinator_, std::move(req),
      [this, post, generation](Result<Reply<protocol::HeartbeatResponse>> r) {
        post([this, generation, r = std::move(r)] {
          heartbeat_in_flight_ = false;
          if (generation != generation_id_) return;
          if (!r) {
            mark_coordinator_unknown(r.status().message());
            return;
          }
          const ErrorCode code = r->message.error_code;
          switch (code) {
            case ErrorCode::kNone:
              last_heartbeat_ok_ms_ = ctx_.now();
              return;
            case ErrorCode::kRebalanceInProgress:
              last_heartbeat_ok_ms_ = ctx_.now();
              if (state_ == MemberState::kStable) request_rejoin("group is already rebalancing");
              return;
            case ErrorCode::kIllegalGeneration:
            case ErrorCode::kUnknownMemberId:
              reset_generation(std::string("Heartbeat: ") + std::string(protocol::error_name(code)),
                               code == ErrorCode::kUnknownMemberId);
              return;
            case ErrorCode::kCoordinatorNotAvailable:
            case ErrorCode::kNotCoordinator:
              mark_coordinator_unknown(std::string(protocol::error_name(code)));
              return;
            default:
              fail(group_error(code, "Heartbeat of group " + *ctx_.config.group_id));
              return;
          }
        });
      });
}

void ConsumerCoordinator::send_leave(const std::string& reason, std::function<void()> done) {
  if (!coordinator_ || member_id_.empty() || ctx_.config.group_instance_id) {
    if (done) done();
    return;
  }
  spdlog::info("consumer: member {} sending LeaveGroup request to coordinator due to {}", member_id_, reason);
  protocol::LeaveGroupRequest req;
  req.group_id = *ctx_.config.group_id;
  req.member_id = member_id_;
  protocol::LeaveGroupRequest::MemberIdentity me;
  me.member_id = member_id_;
  me.reason = reason;
  req.members.push_back(me);
  auto post = ctx_.post;
  send_request<protocol::LeaveGroupRequest, protocol::LeaveGroupResponse>(
      ctx_.network, *coordinator_, std::move(req), [post, done](Result<Reply<protocol::LeaveGroupResponse>> r) {
        if (r && r->message.error_code != ErrorCode::kNone) {
          spdlog::info("consumer: LeaveGroup failed: {}", protocol::error_name(r->message.error_code));
        }
        post([done] {
          if (done) done();
        });
      });
}

void ConsumerCoordinator::leave_group(const std::string& reason, std::function<void()> done) {
  left_ = true;
  auto leave = [this, reason, done] {
    const bool member = state_ != MemberState::kUnjoined || generation_id_ >= 0;
    auto finish = [this, done] {
      generation_id_ = -1;
      member_id_.clear();
      state_ = MemberState::kUnjoined;
      rejoin_needed_ = false;
      if (done) done();
    };
    if (member) {
      send_leave(reason, finish);
    } else {
      finish();
    }
  };
  const std::set<TopicPartition> mine = owned();
  if (!mine.empty() && ctx_.subscriptions.has_auto_assigned()) {
    const auto kind = generation_id_ < 0 ? RebalanceEvent::Kind::kLost : RebalanceEvent::Kind::kRevoked;
    emit(kind, sorted(mine), [this, leave] {
      ctx_.subscriptions.assign_from_subscribed({});
      leave();
    });
    return;
  }
  leave();
}

}  // namespace spool::client
