#include "bench/peer_cluster.h"

namespace spool::bench {

Result<std::unique_ptr<PeerCluster>> PeerCluster::create() {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // This handle only hosts the cluster: silence its "no bootstrap.servers" notice.
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::error(std::string("rd_kafka_new for the mock cluster: ") + err);
  }
  std::unique_ptr<PeerCluster> p(new PeerCluster());
  p->rk_ = rk;
  p->mc_ = rd_kafka_mock_cluster_new(rk, 1);
  if (p->mc_ == nullptr) return Status::error("rd_kafka_mock_cluster_new failed");
  p->bootstrap_ = rd_kafka_mock_cluster_bootstraps(p->mc_);
  return p;
}

PeerCluster::~PeerCluster() {
  if (mc_ != nullptr) rd_kafka_mock_cluster_destroy(mc_);
  if (rk_ != nullptr) rd_kafka_destroy(rk_);
}

Status PeerCluster::create_topic(const std::string& name, int partitions) {
  rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(mc_, name.c_str(), partitions, 1);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
    return Status::error("mock topic " + name + ": " + rd_kafka_err2str(e));
  return Status::ok();
}

std::string peer_description() { return std::string("librdkafka ") + rd_kafka_version_str() + " mock cluster (1 broker, in-process)"; }

}  // namespace spool::bench
