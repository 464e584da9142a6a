// Transaction coordinator: transitions, fencing, markers, timeouts, loading,
// expiration, describe/list — on an in-memory log, a recording marker sender
// and a manual clock.
#include "txn_test_support.h"

namespace spool::coordinator::testing {
namespace {

TEST_F(TxnTest, InitProducerIdNewIdThenBump) {
  auto a = init("tx");
  ASSERT_EQ(a.error, ErrorCode::kNone);
  EXPECT_EQ(a.producer_id, 1000);
  EXPECT_EQ(a.producer_epoch, 0);
  auto p = persisted("tx");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->state, TxnState::kEmpty);
  EXPECT_EQ(p->producer_epoch, 0);
  EXPECT_EQ(p->txn_timeout_ms, kTimeout);
  auto b = init("tx");
  ASSERT_EQ(b.error, ErrorCode::kNone);
  EXPECT_EQ(b.producer_id, 1000);
  EXPECT_EQ(b.producer_epoch, 1);
  EXPECT_EQ(persisted("tx")->producer_epoch, 1);
  // Another id gets another producer id.
  EXPECT_EQ(init("other").producer_id, 1001);
}

TEST_F(TxnTest, InitProducerIdValidation) {
  EXPECT_EQ(init("").error, ErrorCode::kInvalidRequest);
  EXPECT_EQ(init("tx", std::nullopt, 0).error, ErrorCode::kInvalidTransactionTimeout);
  EXPECT_EQ(init("tx", std::nullopt, 900001).error, ErrorCode::kInvalidTransactionTimeout);
  EXPECT_EQ(init("tx", std::nullopt, 900000).error, ErrorCode::kNone);
  ids_.fail(true);
  EXPECT_EQ(init("new").error, ErrorCode::kKafkaStorageError);
}

TEST_F(TxnTest, NotCoordinatorForUnloadedPartition) {
  coord_->unload_partition(coord_->partition_for("tx"));
  EXPECT_EQ(init("tx").error, ErrorCode::kNotCoordinator);
  EXPECT_EQ(coord_->coordinator_status("tx"), ErrorCode::kNotCoordinator);
  ASSERT_TRUE(coord_->load_partition(coord_->partition_for("tx")).is_ok());
  EXPECT_EQ(init("tx").error, ErrorCode::kNone);
}

TEST_F(TxnTest, CommitFlowWritesEveryStateAndMarkers) {
  auto p = init("tx");
  EXPECT_EQ(add("tx", p, {tp("t", 0), tp("t", 1)}), ErrorCode::kNone);
  EXPECT_EQ(state("tx"), TxnState::kOngoing);
  auto stored = persisted("tx");
  EXPECT_EQ(stored->state, TxnState::kOngoing);
  EXPECT_EQ(stored->partitions.size(), 2u);
  EXPECT_EQ(stored->txn_start_timestamp, now());

  // Partitions already in the transaction: success without a write.
  const int appends = log_.appends();
  EXPECT_EQ(add("tx", p, {tp("t", 1)}), ErrorCode::kNone);
  EXPECT_EQ(log_.appends(), appends);
  EXPECT_EQ(add("tx", p, {tp("u", 0)}), ErrorCode::kNone);
  EXPECT_EQ(log_.appends(), appends + 1);

  EXPECT_EQ(end("tx", p, true), ErrorCode::kNone);
  EXPECT_EQ(state("tx"), TxnState::kPrepareCommit);
  EXPECT_EQ(persisted("tx")->state, TxnState::kPrepareCommit);
  ASSERT_EQ(markers_->count(), 1u);
  TxnMarker m = markers_->marker(0);
  EXPECT_TRUE(m.commit);
  EXPECT_EQ(m.producer_id, p.producer_id);
  EXPECT_EQ(m.producer_epoch, p.producer_epoch);
  EXPECT_EQ(m.partitions, (std::vector<TxnPartition>{tp("t", 0), tp("t", 1), tp("u", 0)}));

  // While markers are in flight.
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kInvalidTxnState);
  EXPECT_EQ(init("tx", std::make_pair(p.producer_id, p.producer_epoch)).error, ErrorCode::kConcurrentTransactions);

  markers_->complete(0);
  EXPECT_EQ(state("tx"), TxnState::kCompleteCommit);
  stored = persisted("tx");
  EXPECT_EQ(stored->state, TxnState::kCompleteCommit);
  EXPECT_TRUE(stored->partitions.empty());
  // A retried EndTxn(commit) succeeds; abort is a state mismatch.
  EXPECT_EQ(end("tx", p, true), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kInvalidTxnState);
  // The next transaction starts from CompleteCommit.
  clock_->advance(5);
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  EXPECT_EQ(persisted("tx")->txn_start_timestamp, now());
}

TEST_F(TxnTest, AbortFlow) {
  auto p = init("tx");
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kNone);
  EXPECT_EQ(state("tx"), TxnState::kPrepareAbort);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kInvalidTxnState);
  ASSERT_EQ(markers_->count(), 1u);
  EXPECT_FALSE(markers_->marker(0).commit);
  markers_->complete(0);
  EXPECT_EQ(state("tx"), TxnState::kCompleteAbort);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kInvalidTxnState);
}

TEST_F(TxnTest, EndTxnAndAddPartitionsErrors) {
  InitProducerIdResult unknown{ErrorCode::kNone, 5, 0};
  EXPECT_EQ(end("nobody", unknown, true), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(add("nobody", unknown, {tp("t", 0)}), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(end("", unknown, true), ErrorCode::kInvalidRequest);
  auto p = init("tx");
  // Empty: nothing to end.
  EXPECT_EQ(end("tx", p, true), ErrorCode::kInvalidTxnState);
  InitProducerIdResult wrong_pid{ErrorCode::kNone, p.producer_id + 1, p.producer_epoch};
  EXPECT_EQ(add("tx", wrong_pid, {tp("t", 0)}), ErrorCode::kInvalidProducerIdMapping);
  EXPECT_EQ(end("tx", wrong_pid, true), ErrorCode::kInvalidProducerIdMapping);
  InitProducerIdResult wrong_epoch{ErrorCode::kNone, p.producer_id, static_cast<int16_t>(p.producer_epoch + 1)};
  EXPECT_EQ(add("tx", wrong_epoch, {tp("t", 0)}), ErrorCode::kProducerFenced);
  EXPECT_EQ(end("tx", wrong_epoch, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(state("tx"), TxnState::kEmpty);
}

TEST_F(TxnTest, AddOffsetsAddsTheGroupsOffsetsPartition) {
  auto p = init("tx");
  Answer<ErrorCode> a;
  coord_->add_offsets("tx", p.producer_id, p.producer_epoch, "grp", a.callback());  // "grp" -> 3 % 4 = 3
  ASSERT_TRUE(a.ready());
  EXPECT_EQ(a.get(), ErrorCode::kNone);
  auto md = coord_->metadata("tx");
  EXPECT_EQ(md->partitions, (std::set<TxnPartition>{tp("__consumer_offsets", 3)}));
}

TEST_F(TxnTest, SecondInitFencesOngoingTransactionAndOldProducer) {
  auto first = init("tx");
  EXPECT_EQ(add("tx", first, {tp("t", 0)}), ErrorCode::kNone);
  // A new producer instance with the same id: the open transaction is
  // aborted with a bumped epoch first; the client retries.
  EXPECT_EQ(init("tx").error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(state("tx"), TxnState::kPrepareAbort);
  ASSERT_EQ(markers_->count(), 1u);
  TxnMarker m = markers_->marker(0);
  EXPECT_FALSE(m.commit);
  EXPECT_EQ(m.producer_epoch, first.producer_epoch + 1);
  EXPECT_EQ(m.partitions, (std::vector<TxnPartition>{tp("t", 0)}));
  // Retrying while the markers are in flight.
  EXPECT_EQ(init("tx").error, ErrorCode::kConcurrentTransactions);
  // The zombie is fenced as soon as the abort is prepared.
  EXPECT_EQ(add("tx", first, {tp("t", 1)}), ErrorCode::kProducerFenced);
  EXPECT_EQ(end("tx", first, true), ErrorCode::kProducerFenced);
  markers_->complete(0);
  EXPECT_EQ(state("tx"), TxnState::kCompleteAbort);
  auto second = init("tx");
  ASSERT_EQ(second.error, ErrorCode::kNone);
  EXPECT_EQ(second.producer_id, first.producer_id);
  EXPECT_EQ(second.producer_epoch, first.producer_epoch + 2);
  EXPECT_EQ(add("tx", first, {tp("t", 1)}), ErrorCode::kProducerFenced);
  EXPECT_EQ(add("tx", second, {tp("t", 1)}), ErrorCode::kNone);
}

TEST_F(TxnTest, Kip360ExpectedProducerChecks) {
  auto a = init("tx");
  // Matching (id, epoch): bump, remembering the previous epoch.
  auto b = init("tx", std::make_pair(a.producer_id, a.producer_epoch));
  ASSERT_EQ(b.error, ErrorCode::kNone);
  EXPECT_EQ(b.producer_epoch, a.producer_epoch + 1);
  EXPECT_EQ(coord_->metadata("tx")->last_producer_epoch, a.producer_epoch);
  // A retry with the previous epoch (answer lost) gets the same epoch again.
  auto retry = init("tx", std::make_pair(a.producer_id, a.producer_epoch));
  ASSERT_EQ(retry.error, ErrorCode::kNone);
  EXPECT_EQ(retry.producer_epoch, b.producer_epoch);
  // An unrelated producer id is fenced; so is a stale epoch.
  EXPECT_EQ(init("tx", std::make_pair(a.producer_id + 50, int16_t{0})).error, ErrorCode::kProducerFenced);
  auto c = init("tx");  // no KIP-360: bump, last epoch forgotten
  EXPECT_EQ(c.producer_epoch, b.producer_epoch + 1);
  EXPECT_EQ(init("tx", std::make_pair(a.producer_id, a.producer_epoch)).error, ErrorCode::kProducerFenced);
}

TEST_F(TxnTest, ExhaustedEpochRotatesProducerId) {
  TxnMetadata md;
  md.transactional_id = "old";
  md.producer_id = 77;
  md.producer_epoch = kMaxUsableEpoch;
  md.txn_timeout_ms = kTimeout;
  md.state = TxnState::kCompleteCommit;
  md.txn_last_update_timestamp = now();
  const int32_t part = coord_->partition_for("old");
  log_.add_raw(part, LogRecord{encode_txn_key("old"), encode_txn_value(md)});
  coord_->unload_partition(part);
  ASSERT_TRUE(coord_->load_partition(part).is_ok());
  auto r = init("old", std::make_pair(int64_t{77}, kMaxUsableEpoch));
  ASSERT_EQ(r.error, ErrorCode::kNone);
  EXPECT_EQ(r.producer_id, 1000);
  EXPECT_EQ(r.producer_epoch, 0);
  auto now_md = coord_->metadata("old");
  EXPECT_EQ(now_md->last_producer_id, 77);
  EXPECT_EQ(now_md->last_producer_epoch, kMaxUsableEpoch);
  // The retry of that rotation (old id, exhausted epoch) is not fenced.
  EXPECT_EQ(init("old", std::make_pair(int64_t{77}, kMaxUsableEpoch)).error, ErrorCode::kNone);
}

TEST_F(TxnTest, ConcurrentTransactionsWhileAWriteIsInFlight) {
  auto p = init("tx");
  log_.hold(true);
  Answer<ErrorCode> pending;
  coord_->add_partitions("tx", p.producer_id, p.producer_epoch, {tp("t", 0)}, pending.callback());
  EXPECT_FALSE(pending.ready());  // not answered before the write is durable
  EXPECT_EQ(add("tx", p, {tp("t", 1)}), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(init("tx").error, ErrorCode::kConcurrentTransactions);
  EXPECT_EQ(state("tx"), TxnState::kEmpty);  // not applied before durable
  log_.hold(false);
  log_.release();
  ASSERT_TRUE(pending.ready());
  EXPECT_EQ(pending.get(), ErrorCode::kNone);
  EXPECT_EQ(state("tx"), TxnState::kOngoing);
}

TEST_F(TxnTest, FailedWriteLeavesStateAndMapsTheError) {
  auto p = init("tx");
  log_.fail_next_append(Status::error("disk", static_cast<int16_t>(ErrorCode::kKafkaStorageError)));
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNotCoordinator);
  EXPECT_EQ(state("tx"), TxnState::kEmpty);
  log_.fail_next_append(Status::error("slow", static_cast<int16_t>(ErrorCode::kNotEnoughReplicas)));
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kCoordinatorNotAvailable);
  log_.fail_next_append(Status::error("big", static_cast<int16_t>(ErrorCode::kRecordListTooLarge)));
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kUnknownServerError);
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  log_.fail_next_append(Status::error("disk", static_cast<int16_t>(ErrorCode::kKafkaStorageError)));
  EXPECT_EQ(end("tx", p, true), ErrorCode::kNotCoordinator);
  EXPECT_EQ(state("tx"), TxnState::kOngoing);
  EXPECT_EQ(markers_->count(), 0u);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kNone);
  EXPECT_EQ(markers_->count(), 1u);
}

TEST_F(TxnTest, FailedMarkersAreRetriedForTheFailedPartitionsOnly) {
  auto p = init("tx");
  EXPECT_EQ(add("tx", p, {tp("t", 0), tp("t", 1), tp("gone", 0)}), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kNone);
  ASSERT_EQ(markers_->count(), 1u);
  markers_->complete(0, ErrorCode::kNone,
                     {{tp("t", 1), ErrorCode::kNotLeaderOrFollower}, {tp("gone", 0), ErrorCode::kUnknownTopicOrPartition}});
  EXPECT_EQ(state("tx"), TxnState::kPrepareCommit);
  EXPECT_EQ(coord_->retry_due_markers(), 0);  // backoff not over
  EXPECT_EQ(markers_->count(), 1u);
  clock_->advance(100);
  EXPECT_EQ(coord_->retry_due_markers(), 1);
  ASSERT_EQ(markers_->count(), 2u);
  EXPECT_EQ(markers_->marker(1).partitions, (std::vector<TxnPartition>{tp("t", 1)}));
  markers_->complete(1, ErrorCode::kKafkaStorageError);
  clock_->advance(100);
  coord_->run_periodic_tasks();
  ASSERT_EQ(markers_->count(), 3u);
  markers_->complete(2);
  EXPECT_EQ(state("tx"), TxnState::kCompleteCommit);
}

TEST_F(TxnTest, FailedCompleteWriteIsRetried) {
  auto p = init("tx");
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, false), ErrorCode::kNone);
  log_.fail_next_append(Status::error("slow", static_cast<int16_t>(ErrorCode::kNotEnoughReplicas)));
  markers_->complete(0);
  EXPECT_EQ(state("tx"), TxnState::kPrepareAbort);
  clock_->advance(100);
  coord_->retry_due_markers();
  EXPECT_EQ(state("tx"), TxnState::kCompleteAbort);
  EXPECT_EQ(markers_->count(), 1u);  // markers were not sent again
}

TEST_F(TxnTest, TimedOutTransactionIsAbortedWithEpochBump) {
  auto p = init("tx", std::nullopt, 1000);
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  clock_->advance(1000);
  EXPECT_EQ(coord_->abort_timed_out_transactions(), 0);  // not past the timeout yet
  clock_->advance(1);
  coord_->run_periodic_tasks(true);
  EXPECT_EQ(state("tx"), TxnState::kPrepareAbort);
  ASSERT_EQ(markers_->count(), 1u);
  EXPECT_FALSE(markers_->marker(0).commit);
  EXPECT_EQ(markers_->marker(0).producer_epoch, p.producer_epoch + 1);
  markers_->complete(0);
  EXPECT_EQ(state("tx"), TxnState::kCompleteAbort);
  auto md = persisted("tx");
  EXPECT_EQ(md->producer_epoch, p.producer_epoch + 1);
  EXPECT_EQ(md->last_producer_epoch, kNoProducerEpoch);
  // The producer that timed out is fenced.
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kProducerFenced);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kProducerFenced);
  EXPECT_EQ(coord_->abort_timed_out_transactions(), 0);
}

TEST_F(TxnTest, PeriodicTasksHonourTheirIntervals) {
  auto p = init("tx", std::nullopt, 1000);
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  clock_->advance(5000);
  coord_->run_periodic_tasks(false);  // abort interval 10000 not reached
  EXPECT_EQ(state("tx"), TxnState::kOngoing);
  clock_->advance(5000);
  coord_->run_periodic_tasks(false);
  EXPECT_EQ(state("tx"), TxnState::kPrepareAbort);
}

TEST_F(TxnTest, IdleIdsExpireWithATombstone) {
  auto p = init("idle");
  auto busy = init("busy");
  EXPECT_EQ(add("busy", busy, {tp("t", 0)}), ErrorCode::kNone);
  clock_->advance(3600000 - 1);
  EXPECT_EQ(coord_->expire_transactional_ids(), 0);
  clock_->advance(1);
  // Ongoing transactions never expire (they time out and abort first).
  EXPECT_EQ(coord_->expire_transactional_ids(), 1);
  EXPECT_FALSE(coord_->metadata("idle").has_value());
  EXPECT_TRUE(coord_->metadata("busy").has_value());
  auto recs = log_.records(coord_->partition_for("idle"));
  ASSERT_FALSE(recs.empty());
  EXPECT_EQ(recs.back().key, encode_txn_key("idle"));
  EXPECT_FALSE(recs.back().value.has_value());
  // The expired id is gone: its old producer is unknown, a new init starts over.
  EXPECT_EQ(add("idle", p, {tp("t", 0)}), ErrorCode::kInvalidProducerIdMapping);
  auto again = init("idle");
  EXPECT_NE(again.producer_id, p.producer_id);
  EXPECT_EQ(again.producer_epoch, 0);
  // And it stays gone after a reload.
  start();
  EXPECT_TRUE(coord_->metadata("idle").has_value());  // the re-init above
  EXPECT_EQ(coord_->metadata("idle")->producer_id, again.producer_id);
}

TEST_F(TxnTest, ReloadRebuildsEveryStateAndResendsPreparedMarkers) {
  auto e = init("empty");
  auto o = init("ongoing");
  EXPECT_EQ(add("ongoing", o, {tp("t", 0)}), ErrorCode::kNone);
  auto c = init("commit");
  EXPECT_EQ(add("commit", c, {tp("t", 1), tp("u", 2)}), ErrorCode::kNone);
  EXPECT_EQ(end("commit", c, true), ErrorCode::kNone);  // PrepareCommit, markers never answered
  auto a = init("abort");
  EXPECT_EQ(add("abort", a, {tp("t", 3)}), ErrorCode::kNone);
  EXPECT_EQ(end("abort", a, false), ErrorCode::kNone);
  auto done = init("done");
  EXPECT_EQ(add("done", done, {tp("t", 0)}), ErrorCode::kNone);
  EXPECT_EQ(end("done", done, true), ErrorCode::kNone);
  markers_->complete(markers_->count() - 1);
  EXPECT_EQ(state("done"), TxnState::kCompleteCommit);

  start();  // a new coordinator on the same log (restart)
  EXPECT_EQ(state("empty"), TxnState::kEmpty);
  EXPECT_EQ(state("ongoing"), TxnState::kOngoing);
  EXPECT_EQ(coord_->metadata("ongoing")->partitions, (std::set<TxnPartition>{tp("t", 0)}));
  EXPECT_EQ(state("done"), TxnState::kCompleteCommit);
  EXPECT_EQ(state("commit"), TxnState::kPrepareCommit);
  EXPECT_EQ(state("abort"), TxnState::kPrepareAbort);
  // Exactly the two prepared transactions get their markers again.
  ASSERT_EQ(markers_->count(), 2u);
  bool saw_commit = false, saw_abort = false;
  for (size_t i = 0; i < 2; ++i) {
    TxnMarker m = markers_->marker(i);
    if (m.commit) {
      saw_commit = true;
      EXPECT_EQ(m.producer_id, c.producer_id);
      EXPECT_EQ(m.partitions, (std::vector<TxnPartition>{tp("t", 1), tp("u", 2)}));
    } else {
      saw_abort = true;
      EXPECT_EQ(m.producer_id, a.producer_id);
    }
    markers_->complete(i);
  }
  EXPECT_TRUE(saw_commit && saw_abort);
  EXPECT_EQ(state("commit"), TxnState::kCompleteCommit);
  EXPECT_EQ(state("abort"), TxnState::kCompleteAbort);
  // The producers carry on where they were.
  EXPECT_EQ(end("ongoing", o, true), ErrorCode::kNone);
  EXPECT_EQ(init("empty").producer_epoch, e.producer_epoch + 1);
}

TEST_F(TxnTest, LoadRefusesACorruptLog) {
  const int32_t part = coord_->partition_for("tx");
  coord_->unload_partition(part);
  log_.add_raw(part, LogRecord{encode_txn_key("tx"), Bytes{0, 0, 1}});
  Status s = coord_->load_partition(part);
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(coord_->coordinator_status("tx"), ErrorCode::kNotCoordinator);
  EXPECT_FALSE(coord_->is_loading(part));
}

TEST_F(TxnTest, DescribeAndList) {
  auto a = init("a");
  auto b = init("b");
  EXPECT_EQ(add("b", b, {tp("t", 0), tp("t", 1)}), ErrorCode::kNone);
  auto d = coord_->describe({"a", "b", "missing"});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].error, ErrorCode::kNone);
  EXPECT_EQ(d[0].state, "Empty");
  EXPECT_EQ(d[0].producer_id, a.producer_id);
  EXPECT_EQ(d[1].state, "Ongoing");
  EXPECT_EQ(d[1].partitions.size(), 2u);
  EXPECT_EQ(d[1].txn_start_timestamp, now());
  EXPECT_EQ(d[1].txn_timeout_ms, kTimeout);
  EXPECT_EQ(d[2].error, ErrorCode::kTransactionalIdNotFound);

  auto all = coord_->list({}, {});
  ASSERT_EQ(all.transactions.size(), 2u);
  EXPECT_EQ(all.transactions[0].transactional_id, "a");
  auto ongoing = coord_->list({"Ongoing"}, {});
  ASSERT_EQ(ongoing.transactions.size(), 1u);
  EXPECT_EQ(ongoing.transactions[0].transactional_id, "b");
  auto by_pid = coord_->list({}, {a.producer_id});
  ASSERT_EQ(by_pid.transactions.size(), 1u);
  EXPECT_EQ(by_pid.transactions[0].transactional_id, "a");
  auto unknown = coord_->list({"Bogus"}, {});
  EXPECT_TRUE(unknown.transactions.empty());
  EXPECT_EQ(unknown.unknown_state_filters, (std::vector<std::string>{"Bogus"}));
  auto mixed = coord_->list({"Bogus", "Empty"}, {});
  ASSERT_EQ(mixed.transactions.size(), 1u);
  EXPECT_EQ(mixed.transactions[0].transactional_id, "a");
}

TEST_F(TxnTest, ShutdownAnswersNotCoordinatorAndLateMarkerAnswersAreHarmless) {
  auto p = init("tx");
  EXPECT_EQ(add("tx", p, {tp("t", 0)}), ErrorCode::kNone);
  EXPECT_EQ(end("tx", p, true), ErrorCode::kNone);
  coord_->shutdown();
  EXPECT_EQ(init("tx").error, ErrorCode::kNotCoordinator);
  markers_->complete(0);  // after shutdown: no write, no crash
  coord_.reset();
}

TEST(TxnPartitioning, MatchesJavaStringHashCode) {
  FakeOffsetsLog log(50);
  FakeMarkerSender markers;
  FakeIds ids;
  TxnCoordinatorOptions o;
  o.start_background = false;
  TxnCoordinator c(log, markers, ids, o);
  // "my-txn".hashCode() = -1061187895 in Java; abs & 0x7fffffff % 50.
  EXPECT_EQ(c.partition_for("my-txn"), static_cast<int32_t>((-1061187895 & 0x7fffffff) % 50));
  EXPECT_EQ(c.partition_for(""), 0);
}

}  // namespace
}  // namespace spool::coordinator::testing
