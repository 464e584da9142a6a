// Admin's blocking call and retry loop (see admin.h, "Routing" and
// "Retries"). Internal to src/client/admin/: only its .cc files include it.
//
// call(): one request to one node, waited for on the caller's thread up to
// request.timeout.ms (plus a grace second for the sender's own deadline to
// fire first). call_retrying(): sends to the node `target()` picks; when
// `retriable_of(answer)` names a retriable error and default.api.timeout.ms
// has not passed, forgets the routes, backs off and sends again; otherwise
// returns the answer as it is.
#pragma once

#include <chrono>
#include <future>
#include <memory>

#include "client/admin/admin.h"
#include "protocol/error_code.h"

namespace spool::client {

// The errors that say "ask again, maybe elsewhere" (Kafka's
// RetriableException subclasses the admin client acts on).
bool admin_retriable(protocol::ErrorCode code);

// A Status carrying Kafka's error code: "<what>: <ERROR_NAME>".
Status admin_error(const std::string& what, protocol::ErrorCode code);

template <class Req, class Resp>
Result<Reply<Resp>> Admin::call(const Node& node, const Req& request, SendOptions options) {
  auto promise = std::make_shared<std::promise<Result<Reply<Resp>>>>();
  auto future = promise->get_future();
  send_request<Req, Resp>(
      sender_, node, request, [promise](Result<Reply<Resp>> r) { promise->set_value(std::move(r)); }, options);
  const int64_t wait_ms = int64_t{config_.request_timeout_ms} + 1000;
  if (future.wait_for(std::chrono::milliseconds(wait_ms)) != std::future_status::ready) {
    return Status::error(std::string(Req::kApiName) + " to " + node.host + ":" + std::to_string(node.port) +
                             " got no answer within " + std::to_string(config_.request_timeout_ms) + " ms",
                         protocol::to_int(protocol::ErrorCode::kRequestTimedOut));
  }
  return future.get();
}

template <class Req, class Resp, class Target, class RetriableOf>
Result<Reply<Resp>> Admin::call_retrying(Target target, const Req& request, RetriableOf retriable_of,
                                         SendOptions options) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.default_api_timeout_ms);
  while (true) {
    Result<Node> node = target();
    if (!node) return node.status();
    auto reply = call<Req, Resp>(*node, request, options);
    if (!reply) return reply;
    const protocol::ErrorCode code = retriable_of(reply->message);
    if (!admin_retriable(code) || std::chrono::steady_clock::now() >= deadline) return reply;
    forget_routes(code);
    backoff();
  }
}

}  // namespace spool::client
