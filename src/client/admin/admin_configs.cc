// Admin, configs area: DescribeConfigs and IncrementalAlterConfigs. A BROKER
// or BROKER_LOGGER resource naming a broker goes to that broker (it alone
// holds its dynamic configs and loggers), the rest to any node, as Kafka's
// admin client sends them; answers are merged in request order.
#include <map>

#include "client/admin/admin_routing.h"

namespace spool::client {
namespace {

constexpr int8_t kBrokerResource = 4;
constexpr int8_t kBrokerLoggerResource = 8;

// -1: any node; else the broker id the resource names.
template <class Resource>
int32_t target_of(const Resource& r) {
  if ((r.resource_type == kBrokerResource || r.resource_type == kBrokerLoggerResource) && !r.resource_name.empty()) {
    try {
      return std::stoi(r.resource_name);
    } catch (const std::exception&) {
      return -1;  // the broker answers INVALID_REQUEST for a bad name
    }
  }
  return -1;
}

}  // namespace

// One request per target; `results` points at the answer's result list.
template <class Req, class Resp, class Results>
static Result<Resp> by_target(const Req& request, Results results, const std::function<Result<Node>(int32_t)>& node_of,
                              const std::function<Result<Reply<Resp>>(const Node&, const Req&)>& send) {
  std::map<int32_t, Req> split;
  for (const auto& r : request.resources) {
    auto [it, fresh] = split.try_emplace(target_of(r), request);
    if (fresh) it->second.resources.clear();
    it->second.resources.push_back(r);
  }
  Resp out;
  for (auto& [target, req] : split) {
    auto node = node_of(target);
    if (!node) return node.status();
    auto reply = send(*node, req);
    if (!reply) return reply.status();
    if (split.size() == 1) return std::move(reply->message);
    for (auto& r : results(reply->message)) results(out).push_back(std::move(r));
  }
  return out;
}

Result<protocol::DescribeConfigsResponse> Admin::describe_configs(const protocol::DescribeConfigsRequest& request) {
  using Req = protocol::DescribeConfigsRequest;
  using Resp = protocol::DescribeConfigsResponse;
  return by_target<Req, Resp>(
      request, [](Resp& m) -> auto& { return m.results; },
      [this](int32_t id) { return id < 0 ? any_node() : broker(id); },
      [this](const Node& n, const Req& r) { return call<Req, Resp>(n, r); });
}

Result<protocol::IncrementalAlterConfigsResponse> Admin::incremental_alter_configs(
    const protocol::IncrementalAlterConfigsRequest& request) {
  using Req = protocol::IncrementalAlterConfigsRequest;
  using Resp = protocol::IncrementalAlterConfigsResponse;
  return by_target<Req, Resp>(
      request, [](Resp& m) -> auto& { return m.responses; },
      [this](int32_t id) { return id < 0 ? any_node() : broker(id); },
      [this](const Node& n, const Req& r) { return call<Req, Resp>(n, r); });
}

}  // namespace spool::client
