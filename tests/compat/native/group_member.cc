// native_group_member: one consumer group member on Spool's native client,
// the same program as tests/system/group_member.py (librdkafka), the Java
// client's GroupMember and franz-go's groupmember, with the same events, so
// tests can put members of several clients in one group and judge them
// alike (tests/compat/group_events.py).
//
// It subscribes to TOPIC in GROUP (classic protocol, auto commit off,
// auto.offset.reset=earliest; ASSIGNORS, if given, is
// partition.assignment.strategy, else the default "range,cooperative-sticky")
// and loops: poll, report the records, commit the next offsets of what it
// consumed synchronously. Its revoke callback commits what it consumed
// before the partitions go. SIGTERM: leave the loop, close (revoke, commit,
// LeaveGroup), exit 0.
//
// One JSON line per event on stdout, t = wall-clock seconds:
//   started | assigned {parts} | revoked {parts} | lost {parts}
//   recs {p, offs}           offsets consumed from partition p in one poll
//   commit {offs, ok, err}   offs = {partition: next offset}; ok false = the
//                            outcome is unknown (it may have been applied)
//   closed | error {err} (then exit 3)
//
// Usage: native_group_member BOOTSTRAP GROUP TOPIC NAME [ASSIGNORS]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "event_line.h"

#include "client/consumer/consumer.h"

namespace {

using spool::Status;
using spool::TopicPartition;
namespace client = spool::client;

std::atomic<bool> g_stop{false};

void emit(const std::string& ev, nlohmann::json fields = nlohmann::json::object()) {
  fields["ev"] = ev;
  fields["t"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  write_line(fields.dump());
}

[[noreturn]] void fail(const std::string& what, const Status& s) {
  emit("error", {{"err", what + ": " + s.message()}});
  std::_Exit(3);
}

std::vector<int32_t> parts_of(const std::vector<TopicPartition>& tps) {
  std::vector<int32_t> parts;
  for (const auto& tp : tps) parts.push_back(tp.partition);
  std::sort(parts.begin(), parts.end());
  return parts;
}

// What this member consumed and commits; the rebalance listener.
class Member : public client::ConsumerRebalanceListener {
 public:
  explicit Member(std::string topic) : topic_(std::move(topic)) {}
  void attach(client::Consumer* consumer) { consumer_ = consumer; }

  void consumed(int32_t partition, int64_t next) { next_[partition] = next; }

  // Commits the next offsets of `parts` this member consumed, synchronously.
  void commit(const std::vector<int32_t>& parts) {
    std::map<TopicPartition, client::OffsetAndMetadata> offsets;
    nlohmann::json shown = nlohmann::json::object();
    for (int32_t p : parts) {
      auto it = next_.find(p);
      if (it == next_.end()) continue;
      offsets[TopicPartition(topic_, p)] = client::OffsetAndMetadata{it->second, -1, ""};
      shown[std::to_string(p)] = it->second;
    }
    if (offsets.empty()) return;
    Status s = consumer_->commit_sync(offsets, 15000);
    emit("commit", {{"offs", shown}, {"ok", s.is_ok()}, {"err", s ? nlohmann::json() : nlohmann::json(s.message())}});
  }

  void on_partitions_assigned(const std::vector<TopicPartition>& tps) override {
    emit("assigned", {{"parts", parts_of(tps)}});
  }
  void on_partitions_revoked(const std::vector<TopicPartition>& tps) override {
    const auto parts = parts_of(tps);
    commit(parts);
    for (int32_t p : parts) next_.erase(p);
    emit("revoked", {{"parts", parts}});
  }
  void on_partitions_lost(const std::vector<TopicPartition>& tps) override {
    const auto parts = parts_of(tps);
    for (int32_t p : parts) next_.erase(p);
    emit("lost", {{"parts", parts}});
  }

 private:
  std::string topic_;
  client::Consumer* consumer_ = nullptr;
  std::map<int32_t, int64_t> next_;  // partition -> next offset, for the partitions held now
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: native_group_member BOOTSTRAP GROUP TOPIC NAME [ASSIGNORS]\n";
    return 2;
  }
  std::signal(SIGTERM, [](int) { g_stop = true; });
  const std::string bootstrap = argv[1], group = argv[2], topic = argv[3], name = argv[4];
  spool::config::PropertyList props = {{"bootstrap.servers", bootstrap},
                                       {"group.id", group},
                                       {"client.id", name},
                                       {"enable.auto.commit", "false"},
                                       {"auto.offset.reset", "earliest"},
                                       {"session.timeout.ms", "6000"},
                                       {"heartbeat.interval.ms", "500"},
                                       {"reconnect.backoff.ms", "20"},
                                       {"reconnect.backoff.max.ms", "500"},
                                       {"retry.backoff.ms", "50"},
                                       {"request.timeout.ms", "10000"},
                                       {"default.api.timeout.ms", "15000"}};
  if (argc == 6) props.emplace_back("partition.assignment.strategy", argv[5]);
  auto consumer = client::Consumer::create(props);
  if (!consumer) fail("consumer", consumer.status());
  auto member = std::make_shared<Member>(topic);
  member->attach(consumer->get());
  if (Status s = (*consumer)->subscribe({topic}, member); !s) fail("subscribe", s);
  emit("started");
  while (!g_stop) {
    auto records = (*consumer)->poll(200);
    if (!records) fail("poll", records.status());
    if (records->empty()) continue;
    std::map<int32_t, std::vector<int64_t>> by_part;
    for (const auto& r : *records) by_part[r.partition].push_back(r.offset);
    std::vector<int32_t> parts;
    for (const auto& [p, offs] : by_part) {
      emit("recs", {{"p", p}, {"offs", offs}});
      member->consumed(p, offs.back() + 1);
      parts.push_back(p);
    }
    member->commit(parts);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // "processing", as the Java member
  }
  (*consumer)->close();
  emit("closed");
  return 0;
}
