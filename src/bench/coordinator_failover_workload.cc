// kill -9 of the broker that is both the group and the transaction
// coordinator, and the time until each is usable again (see
// coordinator_workloads.h).
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "bench/cluster_workloads.h"
#include "bench/coordinator_lookup.h"
#include "bench/coordinator_workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kSeqPayload = 16;  // int64 sequence number + padding
constexpr auto kSendInterval = std::chrono::milliseconds(2);
constexpr auto kCommitInterval = std::chrono::milliseconds(20);
constexpr auto kTxnInterval = std::chrono::milliseconds(5);
constexpr int kTxnCallTimeoutMs = 5000;  // one try; retriable errors are tried again
constexpr double kWarmupSeconds = 60;
constexpr double kWholeTimeout = 180;  // internal topics' ISRs full again after a restart
constexpr int kTxnIdCandidates = 1000;
constexpr auto kDestroyTimeout = std::chrono::seconds(30);

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// The first error a thread saw, kept for the failure message.
class FirstError {
 public:
  void set(const std::string& e) {
    std::lock_guard<std::mutex> l(mu_);
    if (text_.empty()) text_ = e;
  }
  std::string get() const {
    std::lock_guard<std::mutex> l(mu_);
    return text_.empty() ? "none" : text_;
  }

 private:
  mutable std::mutex mu_;
  std::string text_;
};

std::string take_error(rd_kafka_error_t* e) {
  std::string s = rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  return s;
}

// State shared by the clients' threads and the driver.
struct Shared {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> kill_ns{std::numeric_limits<int64_t>::max()};
  std::atomic<int64_t> next_seq{0}, acked{0}, received{0}, commits{0}, txns{0};
  std::atomic<int64_t> group_ns{0}, txn_ns{0};
  FirstError produce_error, member_error, commit_error, txn_error, fatal;
};

// The group member: subscribe, poll, commit its position (the next offset
// to read, changed or not) synchronously every 20 ms.
void member_loop(rd_kafka_t* rk, const std::string& topic, Shared& s) {
  rd_kafka_topic_partition_list_t* sub = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(sub, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t se = rd_kafka_subscribe(rk, sub);
  rd_kafka_topic_partition_list_destroy(sub);
  if (se != RD_KAFKA_RESP_ERR_NO_ERROR) {
    s.fatal.set(std::string("subscribe: ") + rd_kafka_err2str(se));
    return;
  }
  int64_t last = -1;  // offset of the last message received
  auto last_try = Clock::now();
  while (!s.stop.load()) {
    // Drain what has arrived, then commit: the member keeps up with the input.
    int drained = 0;
    for (rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 10); m != nullptr && drained < 10000;
         m = rd_kafka_consumer_poll(rk, 0), ++drained) {
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        s.received.fetch_add(1);
        last = m->offset;
      } else {
        s.member_error.set(rd_kafka_err2str(m->err));
      }
      rd_kafka_message_destroy(m);
    }
    if (last < 0 || Clock::now() - last_try < kCommitInterval) continue;
    last_try = Clock::now();
    const int64_t asked = now_ns();
    rd_kafka_topic_partition_list_t* offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offs, topic.c_str(), 0)->offset = last + 1;
    rd_kafka_resp_err_t ce = rd_kafka_commit(rk, offs, /*async=*/0);
    if (ce == RD_KAFKA_RESP_ERR_NO_ERROR && offs->elems[0].err != RD_KAFKA_RESP_ERR_NO_ERROR)
      ce = offs->elems[0].err;
    rd_kafka_topic_partition_list_destroy(offs);
    if (ce != RD_KAFKA_RESP_ERR_NO_ERROR) {
      s.commit_error.set(rd_kafka_err2str(ce));
      continue;
    }
    s.commits.fetch_add(1);
    if (asked > s.kill_ns.load()) set_once(s.group_ns, now_ns());
  }
}

// The transactional producer: short transactions, 5 ms apart. Retriable
// errors are tried again, abortable ones aborted; a fatal one ends it.
void txn_loop(rd_kafka_t* rk, const std::string& topic, Shared& s) {
  for (;;) {
    rd_kafka_error_t* e = rd_kafka_init_transactions(rk, kTxnCallTimeoutMs);
    if (e == nullptr) break;
    bool retriable = rd_kafka_error_is_retriable(e);
    std::string msg = take_error(e);
    if (!retriable || s.stop.load()) return s.fatal.set("init_transactions: " + msg);
  }
  char buf[kSeqPayload] = {};
  for (int64_t seq = 0; !s.stop.load(); ++seq) {
    const int64_t begun = now_ns();
    if (rd_kafka_error_t* e = rd_kafka_begin_transaction(rk)) return s.fatal.set("begin_transaction: " + take_error(e));
    std::memcpy(buf, &seq, sizeof seq);
    rd_kafka_resp_err_t pe = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                               RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                               RD_KAFKA_V_VALUE(buf, sizeof buf), RD_KAFKA_V_END);
    if (pe != RD_KAFKA_RESP_ERR_NO_ERROR)
      return s.fatal.set(std::string("transactional produce: ") + rd_kafka_err2str(pe));
    bool abort = false;
    for (;;) {
      rd_kafka_error_t* e = rd_kafka_commit_transaction(rk, kTxnCallTimeoutMs);
      if (e == nullptr) {
        s.txns.fetch_add(1);
        if (begun > s.kill_ns.load()) set_once(s.txn_ns, now_ns());
        break;
      }
      if (rd_kafka_error_is_fatal(e)) return s.fatal.set("commit_transaction: " + take_error(e));
      abort = rd_kafka_error_txn_requires_abort(e);
      bool retriable = rd_kafka_error_is_retriable(e);
      s.txn_error.set("commit_transaction: " + take_error(e));
      if (abort) break;
      if (!retriable) return s.fatal.set("commit_transaction failed, neither retriable nor abortable");
      if (s.stop.load()) return;
    }
    while (abort) {
      rd_kafka_error_t* e = rd_kafka_abort_transaction(rk, kTxnCallTimeoutMs);
      if (e == nullptr) break;
      if (!rd_kafka_error_is_retriable(e) || s.stop.load()) return s.fatal.set("abort_transaction: " + take_error(e));
      s.txn_error.set("abort_transaction: " + take_error(e));
    }
    rd_kafka_poll(rk, 0);
    std::this_thread::sleep_for(kTxnInterval);
  }
}

// The input producer: acks=all, 16 B every 2 ms.
void input_loop(Producer& p, const std::string& topic, Shared& s) {
  char buf[kSeqPayload] = {};
  while (!s.stop.load()) {
    int64_t seq = s.next_seq.fetch_add(1);
    std::memcpy(buf, &seq, sizeof seq);
    rd_kafka_resp_err_t e = rd_kafka_producev(p.rk(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                              RD_KAFKA_V_VALUE(buf, sizeof buf), RD_KAFKA_V_END);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
      return s.fatal.set(std::string("produce: ") + rd_kafka_err2str(e));
    rd_kafka_poll(p.rk(), 0);
    std::this_thread::sleep_for(kSendInterval);
  }
}

// The three clients, destroyed on a thread of their own: librdkafka 2.0.2's
// rd_kafka_destroy once hung for good against Kafka after a coordinator's
// kill (joining one of its broker threads). A destroy still running after
// kDestroyTimeout is left to finish on that thread (detached, the handles
// leaked with it); the answer names the client, empty when all finished.
struct Clients {
  std::unique_ptr<Producer> input, txn;
  RdkHandle member;
};
std::string destroy_clients(Clients c) {
  auto stage = std::make_shared<std::atomic<int>>(0);  // clients destroyed so far; 3: done
  std::thread t([c = std::move(c), stage]() mutable {
    c.member.reset();  // closes the consumer first (LeaveGroup)
    stage->store(1);
    c.txn.reset();
    stage->store(2);
    c.input.reset();
    stage->store(3);
  });
  auto deadline = Clock::now() + kDestroyTimeout;
  while (stage->load() < 3 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (stage->load() == 3) {
    t.join();
    return "";
  }
  t.detach();
  const char* names[] = {"the group member (consumer close + destroy)", "the transactional producer",
                         "the input producer"};
  return std::string("librdkafka: destroying ") + names[stage->load()] + " still ran after " +
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kDestroyTimeout).count()) +
         " s; left behind";
}

// A group id and a transactional.id with the same coordinator B.
struct Pick {
  std::string group_id, transactional_id;
  int32_t coordinator = -1;
};
Result<Pick> pick_ids(const std::vector<std::string>& nodes, const std::string& name) {
  Pick pk;
  pk.group_id = name + "-group";
  auto g = find_coordinator(nodes, pk.group_id, kGroupCoordinator, 60);
  if (!g) return g.status();
  pk.coordinator = *g;
  for (int i = 0; i < kTxnIdCandidates; ++i) {
    std::string id = name + "-txn-" + std::to_string(i);
    auto t = find_coordinator(nodes, id, kTransactionCoordinator, 60);
    if (!t) return t.status();
    if (*t != pk.coordinator) continue;
    pk.transactional_id = id;
    return pk;
  }
  return Status::error("no transactional.id of " + std::to_string(kTxnIdCandidates) +
                       " candidates has its coordinator on broker " + std::to_string(pk.coordinator));
}

}  // namespace

Result<CoordinatorFailoverResult> run_coordinator_failover(ManagedCluster& c, const std::string& name,
                                                           double timeout_s, Progress* progress, int* killed) {
  if (killed != nullptr) *killed = -1;
  const std::string bs = c.bootstrap();
  std::vector<std::string> nodes;
  for (int i = 0; i < c.size(); ++i) nodes.push_back(c.node_bootstrap(i));
  if (progress) progress->live("waiting for whole internal topics");
  if (auto st = wait_full_isr(bs, {"__consumer_offsets", "__transaction_state"}, c.size(), kWholeTimeout); !st)
    return Status::error("internal topics: " + st.message());
  auto pick = pick_ids(nodes, name);
  if (!pick) return pick.status();
  const int b = pick->coordinator;
  if (b < 0 || b >= c.size()) return Status::error("coordinator " + std::to_string(b) + " is not a node");
  // Replicas on every node (so that any coordinator hosts them: Spool's
  // OffsetCommit and AddPartitionsToTxn refuse a partition the coordinator
  // has no replica of), led by the other nodes, B last.
  std::vector<int32_t> in_replicas, out_replicas;
  for (int i = 0; i < c.size(); ++i)
    if (i != b) in_replicas.push_back(i);
  out_replicas.assign(in_replicas.rbegin(), in_replicas.rend());
  in_replicas.push_back(b);
  out_replicas.push_back(b);
  const std::string in_topic = name + "-in", out_topic = name + "-out";
  NewTopic in{in_topic, 1, {}, -1, {in_replicas}}, out{out_topic, 1, {}, -1, {out_replicas}};
  if (auto st = create_topics(bs, {in, out}, 60000); !st) return st;

  KafkaConfig ic = failover_client(bs);
  ic.insert(ic.end(), {{"acks", "all"}, {"linger.ms", "0"}, {"message.timeout.ms", "300000"}});
  auto input = Producer::create(ic);
  if (!input) return input.status();
  if (auto st = wait_topics_on_every_node(nodes, {in_topic, out_topic}, 1, 30); !st) return st;
  KafkaConfig mc = failover_client(bs);
  mc.insert(mc.end(), {{"group.id", pick->group_id},
                       {"enable.auto.commit", "false"},
                       {"auto.offset.reset", "earliest"},
                       {"fetch.wait.max.ms", "100"},
                       {"fetch.error.backoff.ms", "10"}});
  auto member = make_client(RD_KAFKA_CONSUMER, mc);
  if (!member) return member.status();
  KafkaConfig tc = failover_client(bs);
  tc.insert(tc.end(), {{"transactional.id", pick->transactional_id}, {"linger.ms", "0"}});
  auto txn = Producer::create(tc);
  if (!txn) return txn.status();

  Shared s;
  (*input)->set_delivery_hook([&s](const rd_kafka_message_t& m) {
    if (m.err == RD_KAFKA_RESP_ERR_NO_ERROR) s.acked.fetch_add(1);
    else s.produce_error.set(rd_kafka_err2str(m.err));
  });
  std::thread input_thread(input_loop, std::ref(**input), in_topic, std::ref(s));
  std::thread member_thread(member_loop, member->get(), in_topic, std::ref(s));
  std::thread txn_thread(txn_loop, (*txn)->rk(), out_topic, std::ref(s));
  std::string leaked;
  auto finish = [&] {
    s.stop.store(true);
    input_thread.join();
    member_thread.join();
    txn_thread.join();
    rd_kafka_purge((*input)->rk(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll((*input)->rk(), 0);
    (*input)->set_delivery_hook(nullptr);  // it refers to this frame
    leaked = destroy_clients(Clients{std::move(*input), std::move(*txn), std::move(*member)});
    (void)delete_topics(bs, {in_topic, out_topic}, 30000);
  };
  auto counts = [&] {
    return std::to_string(s.acked.load()) + " acked, " + std::to_string(s.received.load()) + " received, " +
           std::to_string(s.commits.load()) + " commits, " + std::to_string(s.txns.load()) +
           " transactions (errors: produce " + s.produce_error.get() + "; member " + s.member_error.get() +
           "; commit " + s.commit_error.get() +
           "; transaction " + s.txn_error.get() + "; fatal " + s.fatal.get() + ")";
  };

  // Everything flows before the kill: the member is in a stable group
  // (commits succeed) and transactions commit.
  bool warm = wait_for([&] { return s.fatal.get() == "none" ? s.acked.load() >= 50 && s.commits.load() >= 3 &&
                                                                  s.txns.load() >= 5
                                                            : true; },
                       kWarmupSeconds, progress, "warming up");
  if (!warm || s.fatal.get() != "none") {
    std::string why = counts();
    finish();
    return Status::error("warm-up (coordinator " + std::to_string(b) + " of " + pick->group_id + " and " +
                         pick->transactional_id + "): " + why + (leaked.empty() ? "" : "; " + leaked));
  }
  const int64_t kill_at = now_ns();
  s.kill_ns.store(kill_at);
  c.kill9(b);
  if (killed != nullptr) *killed = b;
  bool done = wait_for([&] { return (s.group_ns.load() != 0 && s.txn_ns.load() != 0) || s.fatal.get() != "none"; },
                       timeout_s, progress, "coordinator " + std::to_string(b) + " killed, waiting:");
  std::string state = counts();
  finish();
  if (!leaked.empty()) state += "; " + leaked;
  if (s.fatal.get() != "none") return Status::error("after the kill of broker " + std::to_string(b) + ": " + state);
  if (!done)
    return Status::error("no coordinator failover within " + std::to_string(static_cast<int>(timeout_s)) +
                         " s of killing broker " + std::to_string(b) + " (group " +
                         (s.group_ns.load() ? "stable" : "not stable") + ", transactions " +
                         (s.txn_ns.load() ? "committing" : "not committing") + "): " + state);
  CoordinatorFailoverResult r;
  r.killed = b;
  r.group_id = pick->group_id;
  r.transactional_id = pick->transactional_id;
  r.group_s = static_cast<double>(s.group_ns.load() - kill_at) / 1e9;
  r.txn_s = static_cast<double>(s.txn_ns.load() - kill_at) / 1e9;
  r.note = leaked;
  return r;
}

}  // namespace spool::bench
