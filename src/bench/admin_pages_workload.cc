// create_partitions and time_admin_pages (operability_workloads.h).
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/http_get.h"
#include "bench/operability_workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kPageTimeoutS = 30;

// Partitions of the topics named <prefix>N that GET /v1/topics lists.
Result<int> listed_partitions(int admin_port, const std::string& prefix) {
  auto got = http_get(admin_port, "/v1/topics", kPageTimeoutS);
  if (!got) return got.status();
  if (got->status != 200) return Status::error("GET /v1/topics answered " + std::to_string(got->status));
  auto doc = nlohmann::json::parse(got->body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.contains("topics") || !doc["topics"].is_array())
    return Status::error("GET /v1/topics: not a {\"topics\": [...]} document");
  int n = 0;
  for (const auto& topic : doc["topics"]) {
    if (!topic.contains("name") || !topic["name"].is_string() || !topic.contains("partitions") ||
        !topic["partitions"].is_array())
      return Status::error("GET /v1/topics: a topic without name or partitions");
    if (topic["name"].get<std::string>().rfind(prefix, 0) == 0) n += static_cast<int>(topic["partitions"].size());
  }
  return n;
}

}  // namespace

Status create_partitions(const Target& t, int admin_port, const std::string& prefix, int topics, int per_topic,
                         Progress* progress) {
  std::vector<NewTopic> nts;
  for (int i = 0; i < topics; ++i) nts.push_back(NewTopic{prefix + std::to_string(i), per_topic, {}});
  const int total = topics * per_topic;
  if (progress) progress->live("creating " + std::to_string(total) + " partitions");
  if (auto st = create_topics(t.bootstrap, nts, 120000); !st) return st;
  auto p = Producer::create({{"bootstrap.servers", t.bootstrap}, {"acks", "1"}, {"linger.ms", "5"}});
  if (!p) return p.status();
  char one[100] = {};
  for (const auto& nt : nts) {
    if (auto st = wait_topic_ready((*p)->rk(), nt.name, per_topic, 60000); !st) return st;
    for (int part = 0; part < per_topic; ++part)
      if (auto st = (*p)->send(nt.name, part, one, sizeof one); !st) return st;
  }
  if (auto st = (*p)->flush(120000); !st) return st;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  for (;;) {
    auto listed = listed_partitions(admin_port, prefix);
    if (!listed) return listed.status();
    if (*listed == total) return Status::ok();
    if (Clock::now() > deadline)
      return Status::error("GET /v1/topics lists " + std::to_string(*listed) + " of " + std::to_string(total) +
                           " partitions after 60 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Result<std::vector<PageTimes>> time_admin_pages(int admin_port, const std::vector<std::string>& paths,
                                                int requests) {
  std::vector<PageTimes> out;
  for (const auto& path : paths) out.push_back(PageTimes{path, 0, {}, 0});
  for (int i = 0; i < requests; ++i) {
    for (auto& page : out) {
      if (i > 0 && page.status != 200) continue;
      auto got = http_get(admin_port, page.path, kPageTimeoutS);
      if (!got) return got.status();
      if (i == 0) page.status = got->status;
      if (got->status != page.status)
        return Status::error("GET " + page.path + " answered " + std::to_string(got->status) + " after " +
                             std::to_string(page.status));
      page.seconds.push_back(got->seconds);
      page.body_bytes = got->body.size();
    }
  }
  return out;
}

}  // namespace spool::bench
