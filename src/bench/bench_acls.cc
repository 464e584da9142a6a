// The authorizer workload's ACLs (bench_acls.h): batched CreateAcls and a
// DescribeAcls count through librdkafka's admin API.
#include "bench/bench_acls.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "bench/rdk.h"

namespace spool::bench {
namespace {

struct Binding {
  rd_kafka_ResourcePatternType_t pattern;
  std::string name;
  std::string principal;
  rd_kafka_AclOperation_t operation;
};

// Binding i of the set (bench_acls.h); the last topics.size() are the grants.
Binding binding(int i, int total, const std::string& principal, const std::vector<std::string>& topics) {
  const int grant = i - (total - static_cast<int>(topics.size()));
  if (grant >= 0)
    return {RD_KAFKA_RESOURCE_PATTERN_LITERAL, topics[static_cast<size_t>(grant)], principal,
            RD_KAFKA_ACL_OPERATION_WRITE};
  const std::string n = std::to_string(i);
  const std::string other = "User:user-" + std::to_string(i % 1000);
  switch (i % 3) {
    case 0:
      return {RD_KAFKA_RESOURCE_PATTERN_LITERAL, "acl-other-" + n, other, RD_KAFKA_ACL_OPERATION_WRITE};
    case 1:
      return {RD_KAFKA_RESOURCE_PATTERN_PREFIXED, "bench-acl-" + n + "-", other, RD_KAFKA_ACL_OPERATION_READ};
    default:
      return {RD_KAFKA_RESOURCE_PATTERN_LITERAL, "acl-other-" + n, principal, RD_KAFKA_ACL_OPERATION_WRITE};
  }
}

std::string error_text(const rd_kafka_error_t* e) {
  const char* s = rd_kafka_error_string(e);
  return s != nullptr ? s : rd_kafka_err2str(rd_kafka_error_code(e));
}

// One CreateAcls request for bindings [from, to).
Status create_batch(rd_kafka_t* rk, int from, int to, int total, const std::string& principal,
                    const std::vector<std::string>& topics) {
  std::vector<rd_kafka_AclBinding_t*> acls;
  char err[512];
  for (int i = from; i < to; ++i) {
    Binding b = binding(i, total, principal, topics);
    rd_kafka_AclBinding_t* acl =
        rd_kafka_AclBinding_new(RD_KAFKA_RESOURCE_TOPIC, b.name.c_str(), b.pattern, b.principal.c_str(), "*",
                                b.operation, RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, err, sizeof err);
    if (acl == nullptr) {
      rd_kafka_AclBinding_destroy_array(acls.data(), acls.size());
      return Status::error("AclBinding " + b.name + ": " + err);
    }
    acls.push_back(acl);
  }
  auto ev = admin_request(rk, RD_KAFKA_ADMIN_OP_CREATEACLS, 120000,
                          [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                            rd_kafka_CreateAcls(rk, acls.data(), acls.size(), o, q);
                          });
  rd_kafka_AclBinding_destroy_array(acls.data(), acls.size());
  if (!ev) return Status::error("CreateAcls: " + ev.status().message());
  size_t n = 0;
  const rd_kafka_acl_result_t** res = rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(*ev), &n);
  Status st = Status::ok();
  for (size_t i = 0; i < n && st; ++i)
    if (const rd_kafka_error_t* e = rd_kafka_acl_result_error(res[i]); e != nullptr)
      st = Status::error("CreateAcls refused binding " + std::to_string(from + static_cast<int>(i)) + ": " +
                         error_text(e));
  if (st && n != static_cast<size_t>(to - from))
    st = Status::error("CreateAcls answered " + std::to_string(n) + " results for " + std::to_string(to - from));
  rd_kafka_event_destroy(*ev);
  return st;
}

}  // namespace

Status create_bench_acls(const std::string& bootstrap, const std::string& principal,
                         const std::vector<std::string>& topics, int total, int batch, Progress* progress) {
  if (total < static_cast<int>(topics.size()) || batch < 1) return Status::error("bad ACL count");
  auto admin = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}});
  if (!admin) return admin.status();
  for (int from = 0; from < total; from += batch) {
    int to = std::min(total, from + batch);
    if (auto st = create_batch(admin->get(), from, to, total, principal, topics); !st) return st;
    if (progress) progress->live(std::to_string(to) + "/" + std::to_string(total) + " ACLs created");
  }
  return Status::ok();
}

Result<size_t> count_acls(const std::string& bootstrap, int timeout_ms) {
  auto admin = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}});
  if (!admin) return admin.status();
  char err[512];
  rd_kafka_AclBindingFilter_t* filter = rd_kafka_AclBindingFilter_new(
      RD_KAFKA_RESOURCE_ANY, nullptr, RD_KAFKA_RESOURCE_PATTERN_ANY, nullptr, nullptr, RD_KAFKA_ACL_OPERATION_ANY,
      RD_KAFKA_ACL_PERMISSION_TYPE_ANY, err, sizeof err);
  if (filter == nullptr) return Status::error(std::string("AclBindingFilter: ") + err);
  auto ev = admin_request(admin->get(), RD_KAFKA_ADMIN_OP_DESCRIBEACLS, timeout_ms,
                          [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                            rd_kafka_DescribeAcls(admin->get(), filter, o, q);
                          });
  rd_kafka_AclBinding_destroy(filter);
  if (!ev) return Status::error("DescribeAcls: " + ev.status().message());
  size_t n = 0;
  rd_kafka_DescribeAcls_result_acls(rd_kafka_event_DescribeAcls_result(*ev), &n);
  rd_kafka_event_destroy(*ev);
  return n;
}

Status wait_acls_listed(const std::string& bootstrap, size_t total, double timeout_s, Progress* progress) {
  auto t0 = std::chrono::steady_clock::now();
  std::string last = "no answer";
  for (;;) {
    auto n = count_acls(bootstrap, 30000);
    if (n && *n >= total) return Status::ok();
    last = n ? std::to_string(*n) + " listed" : n.status().message();
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > timeout_s)
      return Status::error("DescribeAcls did not list " + std::to_string(total) + " ACLs within " +
                           std::to_string(static_cast<int>(timeout_s)) + " s (" + last + ")");
    if (progress) progress->live("waiting for the ACLs to apply: " + last);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Status check_produce_refused(const Target& t, const std::string& topic) {
  if (auto st = t.create_topic(NewTopic{topic, 1, {}}); !st) return st;
  KafkaConfig config = {{"bootstrap.servers", t.bootstrap}, {"message.timeout.ms", "15000"}};
  config.insert(config.end(), t.client.begin(), t.client.end());
  auto p = Producer::create(config);
  if (!p) return p.status();
  char one[8] = {};
  Status sent = (*p)->send(topic, 0, one, sizeof one);
  if (sent) (void)(*p)->flush(20000);
  t.drop_topic(topic);
  if (!sent) return sent;
  const std::string want = rd_kafka_err2str(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  if ((*p)->delivered() > 0)
    return Status::error("a produce to " + topic + ", which no ACL grants, was accepted: no authorizer checks");
  if ((*p)->first_error() != want)
    return Status::error("a produce to the ungranted " + topic + " failed with '" + (*p)->first_error() + "', not '" +
                         want + "'");
  return Status::ok();
}

}  // namespace spool::bench
