// Test support for the transaction coordinator: a marker sender that records
// every marker and completes it only when the test says so, a counting
// producer id source, and a fixture on a manual clock (no background thread).
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <mutex>

#include "coordinator/txn/txn_coordinator.h"
#include "coordinator_test_support.h"
#include "util/clock.h"

namespace spool::coordinator::testing {

class FakeMarkerSender : public TxnMarkerSender {
 public:
  struct Sent {
    TxnMarker marker;
    std::function<void(TxnMarkerResult)> done;
  };
  void send(TxnMarker marker, std::function<void(TxnMarkerResult)> done) override {
    std::lock_guard lk(mu_);
    sent_.push_back(Sent{std::move(marker), std::move(done)});
  }
  size_t count() {
    std::lock_guard lk(mu_);
    return sent_.size();
  }
  TxnMarker marker(size_t i) {
    std::lock_guard lk(mu_);
    return sent_.at(i).marker;
  }
  // Answers marker i: every partition `error`, except those in `overrides`.
  void complete(size_t i, ErrorCode error = ErrorCode::kNone,
                std::vector<std::pair<TxnPartition, ErrorCode>> overrides = {}) {
    std::function<void(TxnMarkerResult)> done;
    TxnMarkerResult result;
    {
      std::lock_guard lk(mu_);
      auto& s = sent_.at(i);
      done = std::move(s.done);
      for (const auto& tp : s.marker.partitions) {
        ErrorCode e = error;
        for (const auto& [otp, oe] : overrides)
          if (otp == tp) e = oe;
        result.emplace_back(tp, e);
      }
    }
    ASSERT_TRUE(done) << "marker " << i << " answered twice";
    done(std::move(result));
  }

 private:
  std::mutex mu_;
  std::deque<Sent> sent_;
};

class FakeIds : public ProducerIdSource {
 public:
  Result<int64_t> next_producer_id() override {
    std::lock_guard lk(mu_);
    if (fail_) return Status::error("no ids", static_cast<int16_t>(ErrorCode::kKafkaStorageError));
    return next_++;
  }
  void fail(bool on) {
    std::lock_guard lk(mu_);
    fail_ = on;
  }

 private:
  std::mutex mu_;
  int64_t next_ = 1000;
  bool fail_ = false;
};

class TxnTest : public ::testing::Test {
 protected:
  static constexpr int64_t kWallBase = 1'700'000'000'000;
  static constexpr int32_t kTimeout = 60000;

  TxnCoordinatorOptions options() {
    TxnCoordinatorOptions o;
    o.clock = clock_;
    o.start_background = false;
    o.transaction_max_timeout_ms = 900000;
    o.transactional_id_expiration_ms = 3600000;
    o.marker_retry_backoff_ms = 100;
    o.group_partition_for = [](const std::string& g) { return static_cast<int32_t>(g.size()) % 4; };
    return o;
  }
  void SetUp() override { start(); }
  void TearDown() override {
    if (coord_) coord_->shutdown();
  }
  void start() {
    if (coord_) coord_->shutdown();
    markers_ = std::make_unique<FakeMarkerSender>();
    coord_ = std::make_unique<TxnCoordinator>(log_, *markers_, ids_, options());
    for (int32_t p = 0; p < log_.partition_count(); ++p) ASSERT_TRUE(coord_->load_partition(p).is_ok());
  }
  int64_t now() const { return clock_->wall_ms(); }

  InitProducerIdResult init(const std::string& id, std::optional<std::pair<int64_t, int16_t>> expected = std::nullopt,
                            int32_t timeout = kTimeout) {
    Answer<InitProducerIdResult> a;
    coord_->init_producer_id(id, timeout, expected, a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : InitProducerIdResult{ErrorCode::kUnknownServerError};
  }
  ErrorCode add(const std::string& id, const InitProducerIdResult& p, std::vector<TxnPartition> tps) {
    Answer<ErrorCode> a;
    coord_->add_partitions(id, p.producer_id, p.producer_epoch, std::move(tps), a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : ErrorCode::kUnknownServerError;
  }
  ErrorCode end(const std::string& id, const InitProducerIdResult& p, bool commit) {
    Answer<ErrorCode> a;
    coord_->end_txn(id, p.producer_id, p.producer_epoch, commit, a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : ErrorCode::kUnknownServerError;
  }
  TxnState state(const std::string& id) {
    auto md = coord_->metadata(id);
    EXPECT_TRUE(md.has_value()) << id;
    return md ? md->state : TxnState::kDead;
  }
  // The latest value written for `id` (nullopt: a tombstone or nothing).
  std::optional<TxnMetadata> persisted(const std::string& id) {
    std::optional<TxnMetadata> last;
    for (const auto& r : log_.records(coord_->partition_for(id))) {
      auto k = decode_txn_key(ByteSpan(r.key));
      if (!k || *k != id) continue;
      if (!r.value) {
        last.reset();
        continue;
      }
      auto v = decode_txn_value(id, ByteSpan(*r.value));
      EXPECT_TRUE(v.is_ok()) << v.status().message();
      if (v) last = *v;
    }
    return last;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(0, kWallBase);
  FakeOffsetsLog log_{4};
  FakeIds ids_;
  std::unique_ptr<FakeMarkerSender> markers_;
  std::unique_ptr<TxnCoordinator> coord_;
};

inline TxnPartition tp(const std::string& t, int32_t p) { return TxnPartition{t, p}; }

}  // namespace spool::coordinator::testing
