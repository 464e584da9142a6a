// The consumer loop without a group, on a FakeSender and a ManualClock:
// positions from auto.offset.reset (ListOffsets), fetching and draining,
// OFFSET_OUT_OF_RANGE resets, auto.offset.reset=none, incremental fetch
// sessions over several fetches, and truncation detection after a leader
// epoch change (OffsetForLeaderEpoch).
#include <gtest/gtest.h>

#include "client/consumer/consumer_loop.h"
#include "consumer_test_support.h"
#include "protocol/error_code.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"

namespace spool::client {
namespace {

using protocol::ErrorCode;
using testing::FakeSender;

const TopicPartition kTp("foo", 0);

class Positions : public ::testing::Test {
 protected:
  void make(const config::PropertyList& extra = {}) {
    config::PropertyList props = {{"bootstrap.servers", "b0:9092"}};
    props.insert(props.end(), extra.begin(), extra.end());
    auto c = ConsumerConfig::from_properties(props);
    ASSERT_TRUE(c.is_ok()) << c.status().message();
    loop = std::make_unique<ConsumerLoop>(*c, clock, net);
  }
  void metadata(int32_t epoch = 0) {
    auto s = net.take(protocol::MetadataResponse::kApiKey);
    ASSERT_TRUE(s.has_value());
    FakeSender::answer(*s, testing::metadata_answer({{"foo", 1}}, epoch));
  }
  void list_offsets_answer(int64_t offset, int64_t* timestamp_seen = nullptr) {
    auto s = net.take(protocol::ListOffsetsRequest::kApiKey);
    ASSERT_TRUE(s.has_value());
    auto req = FakeSender::decode<protocol::ListOffsetsRequest>(*s);
    ASSERT_EQ(req.topics.size(), 1u);
    if (timestamp_seen) *timestamp_seen = req.topics[0].partitions[0].timestamp;
    protocol::ListOffsetsResponse resp;
    resp.topics.emplace_back();
    resp.topics[0].name = "foo";
    protocol::ListOffsetsResponse::ListOffsetsTopicResponse::ListOffsetsPartitionResponse p;
    p.partition_index = 0;
    p.offset = offset;
    p.leader_epoch = -1;
    resp.topics[0].partitions.push_back(p);
    FakeSender::answer(*s, resp);
  }
  protocol::FetchRequest take_fetch(FakeSender::Sent* out) {
    auto s = net.take(protocol::FetchRequest::kApiKey);
    EXPECT_TRUE(s.has_value());
    auto req = FakeSender::decode<protocol::FetchRequest>(*s);
    *out = std::move(*s);
    return req;
  }
  static protocol::FetchResponse fetch_answer(int32_t session, ErrorCode code, Bytes records = {},
                                              int32_t diverging_epoch = -1, int64_t diverging_end = -1) {
    protocol::FetchResponse r;
    r.session_id = session;
    r.responses.emplace_back();
    r.responses[0].topic = "foo";
    protocol::FetchResponse::FetchableTopicResponse::PartitionData p;
    p.partition_index = 0;
    p.error_code = code;
    p.high_watermark = 100;
    p.diverging_epoch.epoch = diverging_epoch;
    p.diverging_epoch.end_offset = diverging_end;
    if (!records.empty()) p.records = protocol::Records(std::move(records));
    r.responses[0].partitions.push_back(p);
    return r;
  }
  // Assigns foo-0 and brings its position to `offset` through a latest reset.
  void start_at(int64_t offset) {
    ASSERT_TRUE(loop->subscriptions().assign_from_user({kTp}).is_ok());
    loop->run_once();
    metadata();
    loop->run_once();
    list_offsets_answer(offset);
    loop->run_once();
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(1000);
  FakeSender net;
  std::unique_ptr<ConsumerLoop> loop;
};

TEST_F(Positions, LatestResetThenFetchAndDrain) {
  make({{"max.poll.records", "2"}});
  ASSERT_TRUE(loop->subscriptions().assign_from_user({kTp}).is_ok());
  loop->run_once();
  metadata();
  loop->run_once();
  int64_t ts = 0;
  list_offsets_answer(40, &ts);
  EXPECT_EQ(ts, kLatestTimestamp);
  loop->run_once();
  ASSERT_TRUE(loop->subscriptions().has_valid_position(kTp));
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 40);

  FakeSender::Sent sent;
  auto req = take_fetch(&sent);
  ASSERT_EQ(req.topics.size(), 1u);
  EXPECT_EQ(req.topics[0].partitions[0].fetch_offset, 40);
  EXPECT_EQ(req.session_epoch, 0);  // a full fetch opens the session
  FakeSender::answer(sent, fetch_answer(77, ErrorCode::kNone, testing::batch(40, 3)));
  loop->run_once();
  auto first = loop->fetcher().drain(loop->config().max_poll_records);
  ASSERT_TRUE(first.is_ok());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].offset, 40);
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 42);
  auto second = loop->fetcher().drain(loop->config().max_poll_records);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 43);

  // The next fetch is incremental, in session 77, and carries the new offset.
  loop->run_once();
  req = take_fetch(&sent);
  EXPECT_EQ(req.session_id, 77);
  EXPECT_EQ(req.session_epoch, 1);
  ASSERT_EQ(req.topics.size(), 1u);
  EXPECT_EQ(req.topics[0].partitions[0].fetch_offset, 43);
  auto empty = fetch_answer(77, ErrorCode::kNone);
  empty.responses.clear();
  FakeSender::answer(sent, empty);
  loop->run_once();
  req = take_fetch(&sent);
  EXPECT_EQ(req.session_id, 77);
  EXPECT_EQ(req.session_epoch, 2);
  EXPECT_TRUE(req.topics.empty());  // nothing changed
  // A session error: the fetch after it is full again.
  auto bad = empty;
  bad.error_code = ErrorCode::kFetchSessionIdNotFound;
  bad.session_id = 0;
  FakeSender::answer(sent, bad);
  loop->run_once();
  req = take_fetch(&sent);
  EXPECT_EQ(req.session_id, 0);
  EXPECT_EQ(req.session_epoch, 0);
  EXPECT_EQ(req.topics.size(), 1u);
}

TEST_F(Positions, OffsetOutOfRangeResetsPerPolicy) {
  make({{"auto.offset.reset", "earliest"}});
  start_at(10);
  FakeSender::Sent sent;
  take_fetch(&sent);
  FakeSender::answer(sent, fetch_answer(0, ErrorCode::kOffsetOutOfRange));
  loop->run_once();
  int64_t ts = 0;
  list_offsets_answer(3, &ts);
  EXPECT_EQ(ts, kEarliestTimestamp);
  loop->run_once();
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 3);
}

TEST_F(Positions, NoResetPolicyIsAnError) {
  make({{"auto.offset.reset", "none"}});
  ASSERT_TRUE(loop->subscriptions().assign_from_user({kTp}).is_ok());
  loop->run_once();
  Status e = loop->take_error();
  EXPECT_FALSE(e.is_ok());
  EXPECT_NE(e.message().find("Undefined offset with no reset policy for partitions: [foo-0]"), std::string::npos);
  EXPECT_EQ(net.count(protocol::ListOffsetsRequest::kApiKey), 0u);
}

TEST_F(Positions, SeekWhileFetchingDropsTheAnswer) {
  make();
  start_at(10);
  FakeSender::Sent sent;
  take_fetch(&sent);
  FetchPosition p;
  p.offset = 5;
  loop->subscriptions().seek_validated(kTp, p);
  FakeSender::answer(sent, fetch_answer(0, ErrorCode::kNone, testing::batch(10, 2)));
  loop->run_once();
  auto r = loop->fetcher().drain(500);
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 5);
}

// Position 20 read in epoch 1; the leader moves to epoch 2; the new leader's
// log for epoch 1 ends at 15: truncation.
TEST_F(Positions, LeaderEpochChangeValidatesAndDetectsTruncation) {
  make({{"auto.offset.reset", "earliest"}});
  start_at(18);
  FakeSender::Sent sent;
  take_fetch(&sent);
  FakeSender::answer(sent, fetch_answer(0, ErrorCode::kNone, testing::batch(18, 2, {}, 1)));
  loop->run_once();
  ASSERT_EQ(loop->fetcher().drain(500)->size(), 2u);
  ASSERT_EQ(loop->subscriptions().state(kTp)->position->offset_epoch, 1);
  // Drop the next fetch, then new metadata with leader epoch 2.
  loop->run_once();
  take_fetch(&sent);
  FakeSender::fail(sent, protocol::to_int(ErrorCode::kNetworkException));
  loop->metadata().request_update();
  clock->advance(200);
  loop->run_once();
  metadata(2);
  loop->run_once();
  auto s = net.take(protocol::OffsetForLeaderEpochRequest::kApiKey);
  ASSERT_TRUE(s.has_value());
  auto req = FakeSender::decode<protocol::OffsetForLeaderEpochRequest>(*s);
  ASSERT_EQ(req.topics.size(), 1u);
  EXPECT_EQ(req.topics[0].partitions[0].leader_epoch, 1);
  EXPECT_EQ(req.topics[0].partitions[0].current_leader_epoch, 2);
  EXPECT_EQ(loop->subscriptions().state(kTp)->state, FetchState::kAwaitValidation);
  protocol::OffsetForLeaderEpochResponse resp;
  resp.topics.emplace_back();
  resp.topics[0].topic = "foo";
  protocol::OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult::EpochEndOffset e;
  e.partition = 0;
  e.leader_epoch = 1;
  e.end_offset = 15;
  resp.topics[0].partitions.push_back(e);
  FakeSender::answer(*s, resp);
  loop->run_once();
  const PartitionState* st = loop->subscriptions().state(kTp);
  EXPECT_EQ(st->state, FetchState::kFetching);
  EXPECT_EQ(st->position->offset, 15);
}

TEST_F(Positions, TruncationWithoutResetPolicyIsReported) {
  make({{"auto.offset.reset", "none"}});
  ASSERT_TRUE(loop->subscriptions().assign_from_user({kTp}).is_ok());
  FetchPosition p;
  p.offset = 20;
  p.offset_epoch = 1;
  p.leader_epoch = 2;
  loop->subscriptions().seek_unvalidated(kTp, p);
  ASSERT_EQ(loop->subscriptions().state(kTp)->state, FetchState::kAwaitValidation);
  Status s = loop->subscriptions().maybe_complete_validation(kTp, p, 1, 15);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("Truncated partitions detected"), std::string::npos);
  // A log that did not diverge validates the position.
  EXPECT_TRUE(loop->subscriptions().maybe_complete_validation(kTp, p, 1, 25).is_ok());
  EXPECT_EQ(loop->subscriptions().state(kTp)->state, FetchState::kFetching);
}

TEST_F(Positions, DivergingEpochInFetchAnswerTruncates) {
  make({{"auto.offset.reset", "latest"}});
  start_at(30);
  FetchPosition p = *loop->subscriptions().state(kTp)->position;
  p.offset_epoch = 3;
  loop->subscriptions().seek_validated(kTp, p);
  FakeSender::Sent sent;
  take_fetch(&sent);
  FakeSender::answer(sent, fetch_answer(0, ErrorCode::kNone, {}, 3, 27));
  loop->run_once();
  EXPECT_EQ(loop->subscriptions().state(kTp)->position->offset, 27);
}

TEST_F(Positions, PausedPartitionsAreNotFetched) {
  make();
  ASSERT_TRUE(loop->subscriptions().assign_from_user({kTp}).is_ok());
  loop->subscriptions().pause(kTp, true);
  loop->run_once();
  metadata();
  loop->run_once();
  list_offsets_answer(5);
  loop->run_once();
  EXPECT_EQ(net.count(protocol::FetchRequest::kApiKey), 0u);
  loop->subscriptions().pause(kTp, false);
  loop->run_once();
  EXPECT_EQ(net.count(protocol::FetchRequest::kApiKey), 1u);
}

}  // namespace
}  // namespace spool::client
