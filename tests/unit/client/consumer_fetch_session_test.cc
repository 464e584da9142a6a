// FetchSessionHandler (KIP-227): full then incremental requests, partitions
// added, changed and removed, and the session errors that fall back to a
// full fetch; the scenarios of Kafka's FetchSessionHandlerTest.
#include <gtest/gtest.h>

#include "client/consumer/fetch_session.h"
#include "protocol/error_code.h"

namespace spool::client {
namespace {

using protocol::ErrorCode;
using protocol::FetchResponse;

PartitionFetchData data(int64_t offset) {
  PartitionFetchData d;
  d.fetch_offset = offset;
  d.max_bytes = 1000;
  return d;
}

FetchResponse response(int32_t session_id, const std::vector<TopicPartition>& parts,
                       ErrorCode error = ErrorCode::kNone) {
  FetchResponse r;
  r.error_code = error;
  r.session_id = session_id;
  for (const TopicPartition& tp : parts) {
    if (r.responses.empty() || r.responses.back().topic != tp.topic) {
      r.responses.emplace_back();
      r.responses.back().topic = tp.topic;
    }
    FetchResponse::FetchableTopicResponse::PartitionData p;
    p.partition_index = tp.partition;
    r.responses.back().partitions.push_back(p);
  }
  return r;
}

const TopicPartition kFoo0("foo", 0), kFoo1("foo", 1), kBar0("bar", 0);

TEST(FetchSessionHandler, FullThenIncremental) {
  FetchSessionHandler h(1);
  auto req = h.build({{kFoo0, data(0)}, {kFoo1, data(10)}});
  EXPECT_TRUE(req.full);
  EXPECT_EQ(req.session_id, 0);
  EXPECT_EQ(req.epoch, 0);
  EXPECT_EQ(req.to_send.size(), 2u);
  EXPECT_TRUE(req.to_forget.empty());

  EXPECT_TRUE(h.handle_response(response(123, {kFoo0, kFoo1})));
  EXPECT_EQ(h.session_id(), 123);
  EXPECT_EQ(h.epoch(), 1);

  // Nothing changed: an incremental request with no partitions.
  req = h.build({{kFoo0, data(0)}, {kFoo1, data(10)}});
  EXPECT_FALSE(req.full);
  EXPECT_EQ(req.session_id, 123);
  EXPECT_EQ(req.epoch, 1);
  EXPECT_TRUE(req.to_send.empty());
  EXPECT_TRUE(req.to_forget.empty());
  // An incremental answer may leave partitions out.
  EXPECT_TRUE(h.handle_response(response(123, {kFoo1})));
  EXPECT_EQ(h.epoch(), 2);
}

TEST(FetchSessionHandler, IncrementalAddsChangesAndForgets) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}, {kFoo1, data(10)}});
  ASSERT_TRUE(h.handle_response(response(7, {kFoo0, kFoo1})));
  // foo-0 moved on, foo-1 left, bar-0 is new.
  auto req = h.build({{kFoo0, data(5)}, {kBar0, data(0)}});
  EXPECT_FALSE(req.full);
  ASSERT_EQ(req.to_send.size(), 2u);
  EXPECT_EQ(req.to_send.at(kFoo0).fetch_offset, 5);
  EXPECT_EQ(req.to_send.count(kBar0), 1u);
  ASSERT_EQ(req.to_forget.size(), 1u);
  EXPECT_EQ(req.to_forget[0], kFoo1);
  EXPECT_EQ(h.session_partitions().size(), 2u);
  EXPECT_TRUE(h.handle_response(response(7, {kFoo0})));
  EXPECT_EQ(h.epoch(), 2);
}

TEST(FetchSessionHandler, SessionIdNotFoundStartsOver) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  h.build({{kFoo0, data(0)}});
  EXPECT_FALSE(h.handle_response(response(0, {}, ErrorCode::kFetchSessionIdNotFound)));
  auto req = h.build({{kFoo0, data(0)}});
  EXPECT_TRUE(req.full);
  EXPECT_EQ(req.session_id, 0);
  EXPECT_EQ(req.epoch, 0);
  EXPECT_EQ(req.to_send.size(), 1u);
}

TEST(FetchSessionHandler, InvalidEpochClosesTheSession) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  h.build({{kFoo0, data(0)}});
  EXPECT_FALSE(h.handle_response(response(0, {}, ErrorCode::kInvalidFetchSessionEpoch)));
  // The same session id at epoch 0: a full request that replaces it.
  auto req = h.build({{kFoo0, data(0)}, {kFoo1, data(0)}});
  EXPECT_TRUE(req.full);
  EXPECT_EQ(req.session_id, 9);
  EXPECT_EQ(req.epoch, 0);
  EXPECT_EQ(req.to_send.size(), 2u);
  EXPECT_TRUE(h.handle_response(response(10, {kFoo0, kFoo1})));
  EXPECT_EQ(h.session_id(), 10);
  EXPECT_EQ(h.epoch(), 1);
}

TEST(FetchSessionHandler, RequestFailureMakesTheNextFull) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  h.build({{kFoo0, data(0)}});
  h.handle_error();
  EXPECT_TRUE(h.build({{kFoo0, data(0)}}).full);
}

TEST(FetchSessionHandler, FullAnswerMissingPartitionsIsRejected) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}, {kFoo1, data(0)}});
  EXPECT_FALSE(h.handle_response(response(9, {kFoo0})));
  EXPECT_TRUE(h.build({{kFoo0, data(0)}}).full);
}

TEST(FetchSessionHandler, IncrementalAnswerWithUnknownPartitionClosesSession) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  h.build({{kFoo0, data(0)}});
  EXPECT_FALSE(h.handle_response(response(9, {kBar0})));
  auto req = h.build({{kFoo0, data(0)}});
  EXPECT_TRUE(req.full);
  EXPECT_EQ(req.session_id, 9);
}

TEST(FetchSessionHandler, BrokerEndingTheSessionAndSessionlessBrokers) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  h.build({{kFoo0, data(0)}});
  EXPECT_TRUE(h.handle_response(response(0, {kFoo0})));  // closed by the broker: data still good
  EXPECT_TRUE(h.build({{kFoo0, data(0)}}).full);
  // A broker without sessions answers full requests with id 0: they stay full.
  EXPECT_TRUE(h.handle_response(response(0, {kFoo0})));
  EXPECT_TRUE(h.build({{kFoo0, data(0)}}).full);
}

TEST(FetchSessionHandler, ThrottledEmptyFullAnswerStartsOver) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  FetchResponse r = response(0, {});
  r.throttle_time_ms = 100;
  EXPECT_FALSE(h.handle_response(r));
  EXPECT_TRUE(h.build({{kFoo0, data(0)}}).full);
}

TEST(FetchSessionHandler, EpochAdvancesWithEachAnswer) {
  FetchSessionHandler h(1);
  h.build({{kFoo0, data(0)}});
  ASSERT_TRUE(h.handle_response(response(9, {kFoo0})));
  for (int i = 0; i < 3; ++i) {
    h.build({{kFoo0, data(0)}});
    ASSERT_TRUE(h.handle_response(response(9, {})));
  }
  EXPECT_EQ(h.epoch(), 4);
}

}  // namespace
}  // namespace spool::client
