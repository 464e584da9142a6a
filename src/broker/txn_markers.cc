// WriteTxnMarkers body (see broker/txn_markers.h), v1-2. Each partition's marker
// is appended at once by ReplicaManager::append_txn_marker (which also checks
// a version-2 marker's epoch); the answer for it waits until the marker is durable
// (Kafka answers WriteTxnMarkers after the append is replicated: acks=all),
// so the coordinator only completes a transaction whose markers survive a
// crash. The shared tally answers `done` when the last partition settled.
#include "broker/txn_markers.h"

#include <cstdint>
#include <memory>
#include <mutex>

#include "broker/group_service.h"
#include "broker/replica_manager.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

struct Tally {
  std::mutex mu;
  protocol::WriteTxnMarkersResponse resp;
  size_t pending = 1;  // one for the issuing loop, released at its end
  std::function<void(protocol::WriteTxnMarkersResponse)> done;

  void set(size_t m, size_t t, size_t p, ErrorCode code) {
    std::lock_guard lk(mu);
    resp.markers[m].topics[t].partitions[p].error_code = code;
  }
  void add() {
    std::lock_guard lk(mu);
    ++pending;
  }
  void release() {
    std::function<void(protocol::WriteTxnMarkersResponse)> fire;
    protocol::WriteTxnMarkersResponse out;
    {
      std::lock_guard lk(mu);
      if (--pending != 0) return;
      fire = std::move(done);
      out = std::move(resp);
    }
    if (fire) fire(std::move(out));
  }
};

}  // namespace

void write_txn_markers(BrokerContext& b, const protocol::WriteTxnMarkersRequest& req,
                       std::function<void(protocol::WriteTxnMarkersResponse)> done) {
  auto tally = std::make_shared<Tally>();
  tally->done = std::move(done);
  // Shape the whole response first so callbacks only fill in codes.
  for (const auto& m : req.markers) {
    auto& mr = tally->resp.markers.emplace_back();
    mr.producer_id = m.producer_id;
    for (const auto& t : m.topics) {
      auto& tr = mr.topics.emplace_back();
      tr.name = t.name;
      for (int32_t p : t.partition_indexes) {
        auto& pr = tr.partitions.emplace_back();
        pr.partition_index = p;
        pr.error_code = ErrorCode::kNone;
      }
    }
  }
  for (size_t mi = 0; mi < req.markers.size(); ++mi) {
    const auto& m = req.markers[mi];
    for (size_t ti = 0; ti < m.topics.size(); ++ti) {
      const auto& t = m.topics[ti];
      for (size_t pi = 0; pi < t.partition_indexes.size(); ++pi) {
        TxnMarkerEntry marker;
        marker.tp = TopicPartition(t.name, t.partition_indexes[pi]);
        marker.producer_id = m.producer_id;
        marker.producer_epoch = m.producer_epoch;
        marker.commit = m.transaction_result;
        marker.coordinator_epoch = m.coordinator_epoch;
        marker.transaction_version = m.transaction_version;
        tally->add();
        const bool offsets_topic = t.name == kConsumerOffsetsTopic;
        GroupService* groups = b.groups;
        b.replicas.append_txn_marker(
            marker, [tally, mi, ti, pi, offsets_topic, groups, index = marker.tp.partition, pid = m.producer_id,
                     commit = m.transaction_result](ErrorCode error) {
              if (error != ErrorCode::kNone) {
                tally->set(mi, ti, pi, error);
              } else if (offsets_topic && groups) {
                // Pending transactional offset commits of this producer on
                // that partition become visible (or are dropped).
                groups->coordinator().complete_txn_offsets(index, pid, commit);
              }
              tally->release();
            });
      }
    }
  }
  tally->release();
}

}  // namespace spool::broker
