// The native producer's accumulator and sender on a fake network and a
// manual clock: linger and full batches, in-flight limits, idempotent
// sequences kept across retries, epoch bumps, delivery timeouts, acks=0,
// and answers that are garbage or incomplete (never reported as acked).
#include <gtest/gtest.h>

#include "producer_test_support.h"

namespace spool::client::testing {
namespace {

using protocol::ErrorCode;
constexpr int16_t kProduce = 0;

int16_t code(ErrorCode c) { return protocol::to_int(c); }

TEST(ProducerSender, WaitsForLingerThenSendsOneBatch) {
  ProducerRig rig;
  rig.start();
  rig.append(0, "a");
  rig.append(0, "b");
  rig.sender->run_once();
  EXPECT_EQ(rig.net.pending(kProduce), 0u) << "sent before linger.ms";
  rig.clock->advance(5);
  rig.sender->run_once();
  ASSERT_EQ(rig.net.pending(kProduce), 1u);
  auto call = rig.net.take(kProduce);
  auto seen = decode_produce(call);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(seen[0].header.producer_id, 7000);
  EXPECT_EQ(seen[0].header.base_sequence, 0);
  FakeNetwork::answer(call, ProducerRig::produce_answer(seen, {}, 40));
  rig.sender->run_once();
  ASSERT_EQ(rig.completed, 2);
  EXPECT_TRUE(rig.deliveries[0].status.is_ok());
  EXPECT_EQ(rig.deliveries[0].md.offset, 40);
  EXPECT_EQ(rig.deliveries[1].md.offset, 41);
  EXPECT_EQ(rig.deliveries[1].md.partition, 0);
}

TEST(ProducerSender, FullBatchGoesWithoutWaiting) {
  RigOptions o;
  o.batch_size = 200;
  o.linger_ms = 100000;
  ProducerRig rig(o);
  rig.start();
  for (int i = 0; i < 10; ++i) rig.append(1, std::string(50, 'x'));
  rig.sender->run_once();
  ASSERT_EQ(rig.net.pending(kProduce), 1u);
  auto seen = decode_produce(rig.net.take(kProduce));
  ASSERT_EQ(seen.size(), 1u);  // one batch per partition per request
  EXPECT_LT(seen[0].values.size(), 10u);
  EXPECT_EQ(seen[0].partition, 1);
}

TEST(ProducerSender, NothingIsSentBeforeTheProducerId) {
  ProducerRig rig;
  rig.answer_metadata();
  rig.append(0, "a");
  rig.clock->advance(10);
  rig.sender->run_once();
  EXPECT_EQ(rig.net.pending(kProduce), 0u);
  EXPECT_EQ(rig.net.pending(protocol::InitProducerIdRequest::kApiKey), 1u);
  rig.answer_init_producer_id(55, 3);
  rig.sender->run_once();
  auto seen = decode_produce(rig.net.take(kProduce));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].header.producer_id, 55);
  EXPECT_EQ(seen[0].header.producer_epoch, 3);
}

TEST(ProducerSender, AtMostMaxInFlightRequestsPerNode) {
  RigOptions o;
  o.batch_size = 100;
  o.linger_ms = 0;
  ProducerRig rig(o);
  rig.start();
  for (int i = 0; i < 8; ++i) {
    rig.append(0, std::string(90, 'a' + i));
    rig.sender->run_once();
  }
  EXPECT_EQ(rig.net.pending(kProduce), 5u);
  // Sequences follow each other: 0, 1, 2, ...
  for (int i = 0; i < 5; ++i) {
    auto call = rig.net.take(kProduce);
    auto seen = decode_produce(call);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].header.base_sequence, i);
    FakeNetwork::answer(call, ProducerRig::produce_answer(seen, {}, i));
  }
  // One batch per partition per request and pass: three passes send the rest.
  for (int i = 0; i < 3; ++i) rig.sender->run_once();
  EXPECT_EQ(rig.net.pending(kProduce), 3u);
}

// The first of three in-flight batches fails (the leader moved); the other
// two come back OUT_OF_ORDER. All three are resent one at a time with the
// same sequences, in order; their records are acknowledged in order.
TEST(ProducerSender, RetriesKeepSequencesAndOrder) {
  RigOptions o;
  o.batch_size = 100;
  o.linger_ms = 0;
  ProducerRig rig(o);
  rig.start();
  std::vector<FakeNetwork::Call> calls;
  for (int i = 0; i < 3; ++i) {
    rig.append(0, std::string(90, 'a' + i));
    rig.sender->run_once();
    calls.push_back(rig.net.take(kProduce));
  }
  FakeNetwork::answer(calls[0], ProducerRig::produce_answer(decode_produce(calls[0]),
                                                             {code(ErrorCode::kNotLeaderOrFollower)}, -1));
  for (int i = 1; i < 3; ++i) {
    FakeNetwork::answer(calls[i], ProducerRig::produce_answer(decode_produce(calls[i]),
                                                               {code(ErrorCode::kOutOfOrderSequenceNumber)}, -1));
  }
  rig.sender->run_once();
  EXPECT_EQ(rig.completed, 0);
  EXPECT_FALSE(rig.idem.bump_requested()) << "an out-of-order batch behind a failed one is no gap";
  for (int i = 0; i < 3; ++i) {
    rig.clock->advance(1000);  // past the retry backoff
    rig.sender->run_once();
    if (rig.net.pending(protocol::MetadataRequest::kApiKey) > 0) rig.answer_metadata();
    rig.sender->run_once();
    ASSERT_EQ(rig.net.pending(kProduce), 1u) << "retries go one at a time (round " << i << ")";
    auto call = rig.net.take(kProduce);
    auto seen = decode_produce(call);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].header.base_sequence, i);
    EXPECT_EQ(seen[0].header.producer_epoch, 0);
    EXPECT_EQ(seen[0].values[0], std::string(90, 'a' + i));
    FakeNetwork::answer(call, ProducerRig::produce_answer(seen, {}, 100 + i));
    rig.sender->run_once();
    EXPECT_EQ(rig.completed, i + 1);
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rig.deliveries[static_cast<size_t>(i)].md.offset, 100 + i);
}

TEST(ProducerSender, UnknownProducerIdBumpsTheEpochAndRestartsSequences) {
  RigOptions o;
  o.linger_ms = 0;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "first");
  rig.sender->run_once();
  auto call = rig.net.take(kProduce);
  FakeNetwork::answer(call, ProducerRig::produce_answer(decode_produce(call), {}, 0));
  rig.sender->run_once();
  rig.append(0, "second");
  rig.sender->run_once();
  call = rig.net.take(kProduce);
  EXPECT_EQ(decode_produce(call)[0].header.base_sequence, 1);
  FakeNetwork::answer(call, ProducerRig::produce_answer(decode_produce(call),
                                                         {code(ErrorCode::kUnknownProducerId)}, -1));
  rig.sender->run_once();
  EXPECT_EQ(rig.idem.epoch(), 1) << "bumped locally, as Java's idempotent producer does";
  rig.clock->advance(1000);
  rig.sender->run_once();
  call = rig.net.take(kProduce);
  auto seen = decode_produce(call);
  EXPECT_EQ(seen[0].header.producer_epoch, 1);
  EXPECT_EQ(seen[0].header.base_sequence, 0);
  EXPECT_EQ(seen[0].values[0], "second");
  FakeNetwork::answer(call, ProducerRig::produce_answer(seen, {}, 1));
  rig.sender->run_once();
  EXPECT_EQ(rig.completed, 2);
  EXPECT_TRUE(rig.deliveries[1].status.is_ok());
}

TEST(ProducerSender, FatalErrorFailsTheBatchWithoutRetry) {
  RigOptions o;
  o.linger_ms = 0;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "x");
  rig.sender->run_once();
  auto call = rig.net.take(kProduce);
  FakeNetwork::answer(call, ProducerRig::produce_answer(decode_produce(call), {code(ErrorCode::kInvalidRecord)}, -1));
  rig.sender->run_once();
  ASSERT_EQ(rig.completed, 1);
  EXPECT_EQ(rig.deliveries[0].status.kafka_code(), code(ErrorCode::kInvalidRecord));
  EXPECT_EQ(rig.deliveries[0].md.offset, -1);
  rig.clock->advance(2000);
  rig.sender->run_once();
  EXPECT_EQ(rig.net.pending(kProduce), 0u);
}

TEST(ProducerSender, NetworkErrorsAreRetriedUnlessRetriesIsZero) {
  for (int32_t retries : {0, 3}) {
    RigOptions o;
    o.linger_ms = 0;
    o.idempotence = false;
    o.retries = retries;
    ProducerRig rig(o);
    rig.start();
    rig.append(0, "x");
    rig.sender->run_once();
    auto call = rig.net.take(kProduce);
    FakeNetwork::fail(call, code(ErrorCode::kNetworkException), "connection lost");
    rig.sender->run_once();
    if (retries == 0) {
      ASSERT_EQ(rig.completed, 1);
      EXPECT_EQ(rig.deliveries[0].status.kafka_code(), code(ErrorCode::kNetworkException));
    } else {
      EXPECT_EQ(rig.completed, 0);
      rig.clock->advance(1000);
      rig.answer_metadata();
      rig.sender->run_once();
      EXPECT_EQ(rig.net.pending(kProduce), 1u);
    }
  }
}

TEST(ProducerSender, DeliveryTimeoutExpiresQueuedBatches) {
  RigOptions o;
  o.delivery_timeout_ms = 40000;
  ProducerRig rig(o);
  rig.start();
  rig.append(7, "y");  // a partition with no known leader: it cannot be sent
  for (int i = 0; i < 40; ++i) {
    rig.clock->advance(1000);
    rig.sender->run_once();
    while (rig.net.pending(protocol::MetadataRequest::kApiKey) > 0) rig.answer_metadata();
  }
  EXPECT_EQ(rig.net.pending(kProduce), 0u);
  ASSERT_EQ(rig.completed, 1);
  EXPECT_EQ(rig.deliveries[0].status.kafka_code(), code(ErrorCode::kRequestTimedOut));
  EXPECT_NE(rig.deliveries[0].status.message().find("delivery.timeout.ms"), std::string::npos);
}

TEST(ProducerSender, AcksZeroCompletesOnceWrittenWithoutOffsets) {
  RigOptions o;
  o.acks = 0;
  o.idempotence = false;
  o.linger_ms = 0;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "fire");
  rig.sender->run_once();
  rig.sender->run_once();
  ASSERT_EQ(rig.completed, 1);
  EXPECT_TRUE(rig.deliveries[0].status.is_ok());
  EXPECT_EQ(rig.deliveries[0].md.offset, -1);
  EXPECT_EQ(rig.net.produced_no_ack.size(), 1u);
}

TEST(ProducerSender, GarbageOrIncompleteAnswersAreNeverAcks) {
  RigOptions o;
  o.linger_ms = 0;
  o.delivery_timeout_ms = 60000;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "p0");
  rig.append(1, "p1");
  rig.sender->run_once();
  auto call = rig.net.take(kProduce);
  FakeNetwork::respond_raw(call, Bytes{0xff, 0x00, 0x13});  // truncated garbage
  rig.sender->run_once();
  EXPECT_EQ(rig.completed, 0);
  EXPECT_EQ(rig.net.disconnects, 1) << "a malformed answer drops the connection";
  rig.clock->advance(1000);
  rig.answer_metadata();
  rig.sender->run_once();
  call = rig.net.take(kProduce);
  auto seen = decode_produce(call);
  ASSERT_EQ(seen.size(), 2u);
  // The answer covers only one partition: the other is retried, not acked.
  std::vector<SeenBatch> only_first{seen[0]};
  FakeNetwork::answer(call, ProducerRig::produce_answer(only_first, {}, 10));
  rig.sender->run_once();
  EXPECT_EQ(rig.completed, 1);
  // Past the delivery timeout the missing one fails; it is never reported acked.
  for (int i = 0; i < 80 && rig.completed < 2; ++i) {
    rig.clock->advance(1000);
    rig.sender->run_once();
    while (rig.net.pending(kProduce) > 0) {
      auto c = rig.net.take(kProduce);
      FakeNetwork::fail(c, code(ErrorCode::kNetworkException), "lost");
    }
    if (rig.net.pending(protocol::MetadataRequest::kApiKey) > 0) rig.answer_metadata();
  }
  ASSERT_EQ(rig.completed, 2);
  int acked = 0, failed = 0;
  for (auto& d : rig.deliveries) (d.status.is_ok() ? acked : failed)++;
  EXPECT_EQ(acked, 1);
  EXPECT_EQ(failed, 1);
}

TEST(ProducerAccumulator, BufferMemoryBlocksThenTimesOut) {
  RigOptions o;
  o.batch_size = 1000;
  o.buffer_memory = 1500;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "a");
  SendCallback none;
  const std::optional<Bytes> b = Bytes{'b'};
  auto r = rig.accumulator->append(TopicPartition("t", 1), 0, std::nullopt, b, {},
                                   record_encoded_size(std::nullopt, b, {}), none, 0);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("buffer.memory"), std::string::npos);
}

TEST(ProducerAccumulator, FlushMakesBatchesReadyAtOnce) {
  RigOptions o;
  o.linger_ms = 100000;
  ProducerRig rig(o);
  rig.start();
  rig.append(0, "f");
  std::thread flusher([&] { EXPECT_TRUE(rig.accumulator->flush(5000)); });
  // The flush is visible to ready() once it has started.
  for (int i = 0; i < 200 && rig.net.pending(kProduce) == 0; ++i) {
    rig.sender->run_once();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(rig.net.pending(kProduce), 1u);
  auto call = rig.net.take(kProduce);
  FakeNetwork::answer(call, ProducerRig::produce_answer(decode_produce(call), {}, 0));
  rig.sender->run_once();
  flusher.join();
  EXPECT_EQ(rig.completed, 1);
}

TEST(ProducerAccumulator, EveryCodecProducesValidBatches) {
  for (auto c : {record::Compression::kGzip, record::Compression::kSnappy, record::Compression::kLz4,
                 record::Compression::kZstd}) {
    RigOptions o;
    o.linger_ms = 0;
    o.compression = c;
    ProducerRig rig(o);
    rig.start();
    for (int i = 0; i < 20; ++i) rig.append(0, "value-" + std::to_string(i));
    rig.sender->run_once();
    auto seen = decode_produce(rig.net.take(kProduce));
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].header.compression(), c);
    ASSERT_EQ(seen[0].values.size(), 20u);
    EXPECT_EQ(seen[0].values[19], "value-19");
  }
}

}  // namespace
}  // namespace spool::client::testing
