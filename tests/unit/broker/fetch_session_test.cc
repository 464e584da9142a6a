// FetchSessionCache / FetchContext: request kinds, epoch rules, incremental
// updates and response filtering, cache limit and eviction (KIP-227), and
// the v13+ sessions keyed by topic id (KIP-516).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "broker/fetch_session_cache.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;
using protocol::FetchRequest;
using Kind = FetchContext::Kind;

struct Tp {
  std::string topic;
  int32_t partition;
  int64_t offset = 0;
  int32_t max_bytes = 1024;
};

FetchRequest request(int32_t session_id, int32_t epoch, const std::vector<Tp>& parts,
                     const std::vector<std::pair<std::string, int32_t>>& forget = {}) {
  FetchRequest r;
  r.session_id = session_id;
  r.session_epoch = epoch;
  for (const auto& p : parts) {
    if (r.topics.empty() || r.topics.back().topic != p.topic) r.topics.emplace_back().topic = p.topic;
    auto& fp = r.topics.back().partitions.emplace_back();
    fp.partition = p.partition;
    fp.fetch_offset = p.offset;
    fp.partition_max_bytes = p.max_bytes;
  }
  for (const auto& [t, p] : forget) {
    if (r.forgotten_topics_data.empty() || r.forgotten_topics_data.back().topic != t) {
      r.forgotten_topics_data.emplace_back().topic = t;
    }
    r.forgotten_topics_data.back().partitions.push_back(p);
  }
  return r;
}

FetchPartitionResult result(int64_t hw, int64_t log_start = 0, size_t record_bytes = 0,
                            ErrorCode error = ErrorCode::kNone) {
  FetchPartitionResult r;
  r.high_watermark = hw;
  r.last_stable_offset = hw;
  r.log_start_offset = log_start;
  r.error_code = error;
  r.records.emplace(Bytes(record_bytes, uint8_t{0}));
  return r;
}

// (topic, partition) pairs of a response, in order.
std::vector<std::pair<std::string, int32_t>> listed(const protocol::FetchResponse& resp) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& t : resp.responses) {
    for (const auto& p : t.partitions) out.emplace_back(t.topic, p.partition_index);
  }
  return out;
}

class FetchSessionTest : public ::testing::Test {
 protected:
  FetchSessionCache make_cache(int32_t slots = 10, int64_t eviction_ms = 100) {
    return FetchSessionCache({slots, eviction_ms, clock_});
  }
  // Opens a session over t/0 and t/1 (hw 10 and 20), returns its id.
  int32_t open(FetchSessionCache& cache, bool follower = false, std::vector<Tp> parts = {{"t", 0}, {"t", 1}}) {
    auto ctx = cache.new_context(request(0, 0, parts), 11, follower);
    EXPECT_EQ(ctx.kind(), Kind::kFull);
    std::vector<FetchPartitionResult> res;
    for (size_t i = 0; i < parts.size(); ++i) res.push_back(result(10 * static_cast<int64_t>(i + 1)));
    return ctx.make_response(std::move(res)).session_id;
  }
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1000);
};

TEST_F(FetchSessionTest, EpochArithmetic) {
  EXPECT_EQ(next_fetch_epoch(0), 1);
  EXPECT_EQ(next_fetch_epoch(41), 42);
  EXPECT_EQ(next_fetch_epoch(INT32_MAX), 1);
  EXPECT_EQ(next_fetch_epoch(-1), -1);
  EXPECT_EQ(next_fetch_epoch(-7), -1);
}

TEST_F(FetchSessionTest, BelowV7IsSessionless) {
  auto cache = make_cache();
  for (int16_t v = 4; v <= 6; ++v) {
    // v4-6 carry no session fields on the wire; whatever the struct holds is ignored.
    auto ctx = cache.new_context(request(1234, 5, {{"t", 0}, {"t", 1}}), v, false);
    EXPECT_EQ(ctx.kind(), Kind::kSessionless);
    EXPECT_FALSE(ctx.error());
    auto resp = ctx.make_response({result(1), result(2)});
    EXPECT_EQ(resp.session_id, 0);
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    EXPECT_EQ(listed(resp).size(), 2u);
  }
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(FetchSessionTest, FinalEpochWithoutIdIsSessionless) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request(0, -1, {{"t", 0}}), 11, false);
  EXPECT_EQ(ctx.kind(), Kind::kSessionless);
  EXPECT_EQ(ctx.make_response({result(3)}).session_id, 0);
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(FetchSessionTest, FullFetchCreatesSession) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request(0, 0, {{"t", 0, 5}, {"u", 3, 7}}), 7, false);
  ASSERT_EQ(ctx.kind(), Kind::kFull);
  ASSERT_EQ(ctx.partitions().size(), 2u);
  EXPECT_EQ(ctx.partitions()[1].topic, "u");
  EXPECT_EQ(ctx.partitions()[1].fetch_offset, 7);
  auto resp = ctx.make_response({result(10, 1), result(20, 2)});
  EXPECT_GT(resp.session_id, 0);
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  // Full responses carry every partition, grouped by topic.
  ASSERT_EQ(resp.responses.size(), 2u);
  EXPECT_EQ(resp.responses[0].topic, "t");
  EXPECT_EQ(resp.responses[1].topic, "u");
  EXPECT_EQ(resp.responses[1].partitions[0].partition_index, 3);
  auto info = cache.session(resp.session_id);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->epoch, 1);
  ASSERT_EQ(info->partitions.size(), 2u);
  EXPECT_EQ(info->partitions[0].high_watermark, 10);
  EXPECT_EQ(info->partitions[0].local_log_start_offset, 1);
  EXPECT_EQ(info->partitions[1].wanted.fetch_offset, 7);
  EXPECT_EQ(cache.total_partitions(), 2);
}

TEST_F(FetchSessionTest, DuplicatePartitionsAreMerged) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request(0, 0, {{"t", 0, 5}, {"t", 1, 1}, {"t", 0, 9}}), 11, false);
  ASSERT_EQ(ctx.partitions().size(), 2u);
  EXPECT_EQ(ctx.partitions()[0].partition, 0);
  EXPECT_EQ(ctx.partitions()[0].fetch_offset, 9);
}

TEST_F(FetchSessionTest, IncrementalWithoutChangesAnswersNothing) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto ctx = cache.new_context(request(id, 1, {}), 11, false);
  ASSERT_EQ(ctx.kind(), Kind::kIncremental);
  EXPECT_EQ(ctx.session_id(), id);
  ASSERT_EQ(ctx.partitions().size(), 2u);  // the whole session is read
  auto resp = ctx.make_response({result(10), result(20)});
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  EXPECT_EQ(resp.session_id, id);
  EXPECT_TRUE(resp.responses.empty());
  EXPECT_EQ(cache.session(id)->epoch, 2);
}

TEST_F(FetchSessionTest, IncrementalAnswersOnlyChangedPartitions) {
  auto cache = make_cache();
  int32_t id = open(cache);
  // High watermark of t/1 moved.
  auto r1 = cache.new_context(request(id, 1, {}), 11, false).make_response({result(10), result(21)});
  EXPECT_EQ(listed(r1), (std::vector<std::pair<std::string, int32_t>>{{"t", 1}}));
  EXPECT_EQ(r1.responses[0].partitions[0].high_watermark, 21);
  // Records for t/0 (high watermark unchanged) are sent.
  auto r2 = cache.new_context(request(id, 2, {}), 11, false).make_response({result(10, 0, 64), result(21)});
  EXPECT_EQ(listed(r2), (std::vector<std::pair<std::string, int32_t>>{{"t", 0}}));
  // Answered partitions move to the back, so t/1 is read first now.
  auto ctx3 = cache.new_context(request(id, 3, {}), 11, false);
  ASSERT_EQ(ctx3.partitions().size(), 2u);
  EXPECT_EQ(ctx3.partitions()[0].partition, 1);
  // A preferred replica and a log start offset change are changes too.
  auto res_pref = result(21);
  res_pref.preferred_read_replica = 0;
  auto r3 = ctx3.make_response({res_pref, result(10, 5)});
  EXPECT_EQ(listed(r3), (std::vector<std::pair<std::string, int32_t>>{{"t", 1}, {"t", 0}}));
}

TEST_F(FetchSessionTest, ErrorsAreAlwaysSentAndResendAfterRecovery) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto err = result(-1, -1, 0, ErrorCode::kUnknownTopicOrPartition);
  // Results by partition of topic t, in the order the context asks for.
  auto answer = [&](int32_t epoch, const FetchPartitionResult& p0, const FetchPartitionResult& p1) {
    auto ctx = cache.new_context(request(id, epoch, {}), 11, false);
    std::vector<FetchPartitionResult> res;
    for (const auto& w : ctx.partitions()) res.push_back(w.partition == 0 ? p0 : p1);
    return ctx.make_response(std::move(res));
  };
  auto r1 = answer(1, err, result(20));
  EXPECT_EQ(listed(r1), (std::vector<std::pair<std::string, int32_t>>{{"t", 0}}));
  EXPECT_EQ(r1.responses[0].partitions[0].error_code, ErrorCode::kUnknownTopicOrPartition);
  auto r2 = answer(2, err, result(20));
  EXPECT_EQ(listed(r2), (std::vector<std::pair<std::string, int32_t>>{{"t", 0}}));
  // Back to the state it had before the error: must be sent again.
  auto r3 = answer(3, result(10), result(20));
  EXPECT_EQ(listed(r3), (std::vector<std::pair<std::string, int32_t>>{{"t", 0}}));
  auto r4 = answer(4, result(10), result(20));
  EXPECT_TRUE(r4.responses.empty());
}

TEST_F(FetchSessionTest, IncrementalAddsUpdatesAndForgets) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto ctx = cache.new_context(request(id, 1, {{"t", 0, 99, 512}, {"v", 0, 3}}, {{"t", 1}}), 11, false);
  ASSERT_EQ(ctx.kind(), Kind::kIncremental);
  ASSERT_EQ(ctx.partitions().size(), 2u);
  EXPECT_EQ(ctx.partitions()[0].topic, "t");
  EXPECT_EQ(ctx.partitions()[0].fetch_offset, 99);
  EXPECT_EQ(ctx.partitions()[0].max_bytes, 512);
  EXPECT_EQ(ctx.partitions()[1].topic, "v");
  // The new partition has never been sent, so it is in the answer; t/0 is unchanged.
  auto resp = ctx.make_response({result(10), result(4)});
  EXPECT_EQ(listed(resp), (std::vector<std::pair<std::string, int32_t>>{{"v", 0}}));
  auto info = cache.session(id);
  ASSERT_EQ(info->partitions.size(), 2u);
  EXPECT_EQ(cache.total_partitions(), 2);
  // Omitted partitions keep their last parameters.
  auto again = cache.new_context(request(id, 2, {}), 11, false);
  EXPECT_EQ(again.partitions()[0].fetch_offset, 99);
}

TEST_F(FetchSessionTest, ForgettingEverythingClosesTheSession) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto ctx = cache.new_context(request(id, 1, {}, {{"t", 0}, {"t", 1}}), 11, false);
  EXPECT_EQ(ctx.kind(), Kind::kSessionless);
  EXPECT_TRUE(ctx.partitions().empty());
  auto resp = ctx.make_response({});
  EXPECT_EQ(resp.session_id, 0);
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  EXPECT_FALSE(cache.session(id));
  EXPECT_EQ(cache.total_partitions(), 0);
}

TEST_F(FetchSessionTest, UnknownSessionId) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request(4242, 1, {{"t", 0}}), 11, false);
  EXPECT_EQ(ctx.kind(), Kind::kSessionError);
  EXPECT_EQ(ctx.error(), ErrorCode::kFetchSessionIdNotFound);
  EXPECT_TRUE(ctx.partitions().empty());
  auto resp = ctx.make_response({});
  EXPECT_EQ(resp.error_code, ErrorCode::kFetchSessionIdNotFound);
  EXPECT_EQ(resp.session_id, 0);
  EXPECT_TRUE(resp.responses.empty());
  // An epoch > 0 without a session id is an incremental fetch of nothing known.
  EXPECT_EQ(cache.new_context(request(0, 3, {}), 11, false).error(), ErrorCode::kFetchSessionIdNotFound);
}

TEST_F(FetchSessionTest, WrongEpoch) {
  auto cache = make_cache();
  int32_t id = open(cache);
  for (int32_t bad : {2, 5, -3}) {
    auto ctx = cache.new_context(request(id, bad, {}), 11, false);
    EXPECT_EQ(ctx.error(), ErrorCode::kInvalidFetchSessionEpoch) << bad;
    EXPECT_EQ(ctx.make_response({}).error_code, ErrorCode::kInvalidFetchSessionEpoch);
  }
  // The session is untouched by the failures.
  EXPECT_EQ(cache.session(id)->epoch, 1);
  EXPECT_EQ(cache.new_context(request(id, 1, {}), 11, false).kind(), Kind::kIncremental);
  // Replaying an epoch already used fails.
  EXPECT_EQ(cache.new_context(request(id, 1, {}), 11, false).error(), ErrorCode::kInvalidFetchSessionEpoch);
}

TEST_F(FetchSessionTest, EpochMovedWhileAnsweringIsADuplicate) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto first = cache.new_context(request(id, 1, {}), 11, false);
  auto second = cache.new_context(request(id, 2, {}), 11, false);
  auto r1 = first.make_response({result(11), result(20)});
  EXPECT_EQ(r1.error_code, ErrorCode::kInvalidFetchSessionEpoch);
  EXPECT_EQ(r1.session_id, id);
  EXPECT_TRUE(r1.responses.empty());
  auto r2 = second.make_response({result(11), result(20)});
  EXPECT_EQ(r2.error_code, ErrorCode::kNone);
  EXPECT_EQ(listed(r2).size(), 1u);
}

TEST_F(FetchSessionTest, FinalEpochClosesSession) {
  auto cache = make_cache();
  int32_t id = open(cache);
  auto ctx = cache.new_context(request(id, -1, {{"t", 0}}), 11, false);
  EXPECT_EQ(ctx.kind(), Kind::kSessionless);
  EXPECT_FALSE(cache.session(id));
  auto resp = ctx.make_response({result(10)});
  EXPECT_EQ(resp.session_id, 0);
  EXPECT_EQ(listed(resp).size(), 1u);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.new_context(request(id, 1, {}), 11, false).error(), ErrorCode::kFetchSessionIdNotFound);
}

TEST_F(FetchSessionTest, FullFetchWithIdReplacesSession) {
  auto cache = make_cache();
  int32_t id = open(cache);
  int32_t id2 = cache.new_context(request(id, 0, {{"t", 0}}), 11, false).make_response({result(1)}).session_id;
  EXPECT_GT(id2, 0);
  EXPECT_NE(id2, id);
  EXPECT_FALSE(cache.session(id));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.total_partitions(), 1);
}

TEST_F(FetchSessionTest, ZeroSlotsNeverCreatesSessions) {
  auto cache = make_cache(0);
  auto ctx = cache.new_context(request(0, 0, {{"t", 0}}), 11, false);
  EXPECT_EQ(ctx.make_response({result(1)}).session_id, 0);
  EXPECT_EQ(cache.size(), 0u);
  // Same for a follower.
  EXPECT_EQ(open(cache, true), 0);
}

TEST_F(FetchSessionTest, YoungSessionsAreNotEvictedByConsumers) {
  auto cache = make_cache(2, 100);
  int32_t a = open(cache);
  int32_t b = open(cache);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  clock_->advance(10);
  EXPECT_EQ(open(cache, false, {{"t", 0}, {"t", 1}, {"t", 2}}), 0);  // bigger, but a and b are too young
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.evictions(), 0);
}

TEST_F(FetchSessionTest, FollowersEvictConsumers) {
  auto cache = make_cache(2, 100);
  int32_t a = open(cache, false, {{"t", 0}, {"t", 1}, {"t", 2}});
  int32_t b = open(cache);
  clock_->advance(10);
  int32_t f = open(cache, true, {{"t", 0}});
  ASSERT_GT(f, 0);
  // The smaller consumer session went, even though the follower's is smaller still.
  EXPECT_TRUE(cache.session(a));
  EXPECT_FALSE(cache.session(b));
  EXPECT_TRUE(cache.session(f)->privileged);
  EXPECT_EQ(cache.evictions(), 1);
  // A young follower session cannot be evicted, not even by another follower.
  int32_t g = open(cache, true, {{"t", 0}, {"t", 1}, {"t", 2}, {"t", 3}});
  ASSERT_GT(g, 0);
  EXPECT_FALSE(cache.session(a));
  EXPECT_EQ(open(cache, true, {{"t", 0}, {"t", 1}, {"t", 2}, {"t", 3}, {"t", 4}}), 0);
}

TEST_F(FetchSessionTest, StaleSessionIsEvictedFirst) {
  auto cache = make_cache(2, 100);
  int32_t a = open(cache);
  int32_t b = open(cache);
  clock_->advance(60);
  // Keep b in use; a goes stale.
  ASSERT_EQ(cache.new_context(request(b, 1, {}), 11, false).kind(), Kind::kIncremental);
  clock_->advance(50);
  int32_t c = open(cache, false, {{"t", 0}});
  ASSERT_GT(c, 0);
  EXPECT_FALSE(cache.session(a));
  EXPECT_TRUE(cache.session(b));
  EXPECT_EQ(cache.evictions(), 1);
}

TEST_F(FetchSessionTest, OldBusySessionsEvictedBySize) {
  auto cache = make_cache(2, 100);
  int32_t small = open(cache, false, {{"t", 0}});
  int32_t big = open(cache, false, {{"t", 0}, {"t", 1}, {"t", 2}});
  // Both stay in use past the protection period.
  for (int i = 1; i <= 3; ++i) {
    clock_->advance(50);
    ASSERT_EQ(cache.new_context(request(small, i, {}), 11, false).kind(), Kind::kIncremental);
    ASSERT_EQ(cache.new_context(request(big, i, {}), 11, false).kind(), Kind::kIncremental);
  }
  clock_->advance(10);
  // A newcomer of 2 partitions beats the 1-partition session but not the 3-partition one.
  int32_t mid = open(cache, false, {{"t", 0}, {"t", 1}});
  ASSERT_GT(mid, 0);
  EXPECT_FALSE(cache.session(small));
  EXPECT_TRUE(cache.session(big));
  EXPECT_EQ(open(cache, false, {{"t", 0}}), 0);  // smaller than big, and mid is young
  EXPECT_EQ(cache.total_partitions(), 5);
}

TEST_F(FetchSessionTest, SessionIdsArePositiveAndUnique) {
  auto cache = make_cache(500, 100);
  std::set<int32_t> ids;
  for (int i = 0; i < 500; ++i) {
    int32_t id = open(cache, false, {{"t", 0}});
    ASSERT_GT(id, 0);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 500u);
  EXPECT_EQ(cache.size(), 500u);
}

TEST_F(FetchSessionTest, MismatchedResultCountIsAnErrorNotACrash) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request(0, 0, {{"t", 0}, {"t", 1}}), 11, false);
  auto resp = ctx.make_response({result(1)});
  EXPECT_EQ(resp.error_code, ErrorCode::kUnknownServerError);
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(FetchSessionTest, ConcurrentSessionsStayConsistent) {
  auto cache = make_cache(8, 100);
  std::vector<std::thread> threads;
  std::atomic<int> incremental_ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        auto full = cache.new_context(request(0, 0, {{"t", t}, {"u", t}}), 11, false);
        int32_t id = full.make_response({result(1), result(2)}).session_id;
        if (id == 0) continue;
        for (int e = 1; e <= 3; ++e) {
          auto ctx = cache.new_context(request(id, e, {{"t", t, round}}), 11, false);
          if (ctx.error()) break;  // evicted by another thread: allowed
          auto resp = ctx.make_response(std::vector<FetchPartitionResult>(ctx.partitions().size(), result(e)));
          if (resp.error_code == ErrorCode::kNone) ++incremental_ok;
        }
        cache.new_context(request(id, -1, {}), 11, false);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GT(incremental_ok.load(), 0);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.total_partitions(), 0);
}

// ---- v13+: topics by id.

TopicId id_of(uint8_t n) {
  TopicId id{};
  id[0] = n;
  return id;
}

FetchRequest request_by_id(int32_t session_id, int32_t epoch, const std::vector<std::pair<TopicId, int32_t>>& parts,
                           const std::vector<std::pair<TopicId, int32_t>>& forget = {}) {
  FetchRequest r;
  r.session_id = session_id;
  r.session_epoch = epoch;
  for (const auto& [id, p] : parts) {
    if (r.topics.empty() || r.topics.back().topic_id != id) r.topics.emplace_back().topic_id = id;
    auto& fp = r.topics.back().partitions.emplace_back();
    fp.partition = p;
    fp.partition_max_bytes = 1024;
  }
  for (const auto& [id, p] : forget) {
    auto& f = r.forgotten_topics_data.emplace_back();
    f.topic_id = id;
    f.partitions.push_back(p);
  }
  return r;
}

// Names ids 1 and 2; every other id is unknown.
std::string resolve(const TopicId& id) {
  if (id == id_of(1)) return "a";
  if (id == id_of(2)) return "b";
  return "";
}

TEST_F(FetchSessionTest, V13ResolvesIdsAndKeepsUnknownOnes) {
  auto cache = make_cache();
  auto ctx = cache.new_context(request_by_id(0, 0, {{id_of(1), 0}, {id_of(9), 0}, {id_of(1), 1}}), 13, false,
                               resolve);
  ASSERT_EQ(ctx.partitions().size(), 3u);
  EXPECT_EQ(ctx.partitions()[0].topic, "a");
  EXPECT_EQ(ctx.partitions()[0].topic_id, id_of(1));
  EXPECT_EQ(ctx.partitions()[1].topic, "") << "an unknown id stays unnamed";
  EXPECT_EQ(ctx.partitions()[1].topic_id, id_of(9));
  auto resp = ctx.make_response({result(1), result(-1, -1, 0, ErrorCode::kUnknownTopicId), result(2)});
  // Grouped by id, in request order: a/0, ?/0, a/1.
  ASSERT_EQ(resp.responses.size(), 3u);
  EXPECT_EQ(resp.responses[0].topic_id, id_of(1));
  EXPECT_EQ(resp.responses[1].topic_id, id_of(9));
  EXPECT_EQ(resp.responses[1].partitions[0].error_code, ErrorCode::kUnknownTopicId);
  EXPECT_GT(resp.session_id, 0);
}

TEST_F(FetchSessionTest, V13SessionIsKeyedByIdAndForgetsById) {
  auto cache = make_cache();
  auto full = cache.new_context(request_by_id(0, 0, {{id_of(1), 0}, {id_of(2), 0}}), 18, false, resolve);
  const int32_t id = full.make_response({result(10), result(20)}).session_id;
  ASSERT_GT(id, 0);
  // The same partition named by id again is an update, not a new partition.
  auto inc = cache.new_context(request_by_id(id, 1, {{id_of(1), 0}}, {{id_of(2), 0}}), 18, false, resolve);
  ASSERT_EQ(inc.kind(), Kind::kIncremental);
  ASSERT_EQ(inc.partitions().size(), 1u) << "b/0 forgotten by id";
  EXPECT_EQ(inc.partitions()[0].topic, "a");
  auto resp = inc.make_response({result(11)});
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].topic_id, id_of(1));
  // A name-based forget cannot touch an id-keyed session (v12 is refused).
  auto wrong = cache.new_context(request(id, 2, {}), 12, false, resolve);
  EXPECT_EQ(wrong.error(), ErrorCode::kFetchSessionTopicIdError);
  EXPECT_EQ(wrong.make_response({}).session_id, 0);
  // The session is intact: the right version continues it.
  auto next = cache.new_context(request_by_id(id, 2, {}), 13, false, resolve);
  EXPECT_EQ(next.kind(), Kind::kIncremental);
  ASSERT_EQ(next.partitions().size(), 1u);
  EXPECT_EQ(next.partitions()[0].topic_id, id_of(1));
}

TEST_F(FetchSessionTest, NameSessionRefusesV13) {
  auto cache = make_cache();
  const int32_t id = open(cache);
  ASSERT_GT(id, 0);
  EXPECT_EQ(cache.new_context(request_by_id(id, 1, {}), 13, false, resolve).error(),
            ErrorCode::kFetchSessionTopicIdError);
  EXPECT_EQ(cache.new_context(request(id, 1, {}), 12, false).kind(), Kind::kIncremental);
}

TEST_F(FetchSessionTest, DivergingEpochIsAlwaysSentIncrementally) {
  auto cache = make_cache();
  const int32_t id = open(cache);
  auto ctx = cache.new_context(request(id, 1, {}), 12, false);
  auto diverged = result(20);
  diverged.diverging_epoch = {0, 15};
  auto resp = ctx.make_response({result(10), diverged});  // nothing else changed
  EXPECT_EQ(listed(resp), (std::vector<std::pair<std::string, int32_t>>{{"t", 1}}));
}

}  // namespace
}  // namespace spool::broker
