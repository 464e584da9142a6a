// call_sync: one typed request over a RequestSender (client/request_sender.h),
// waited for on the caller's thread: the native client's blocking
// operations (init_transactions, commit_transaction, coordinator lookups)
// use it from the application's thread, never from an I/O or loop thread.
//
// Returns the decoded response, or the transport's failure, or
// REQUEST_TIMED_OUT when no answer came within timeout_ms (the request may
// still complete later; its answer is then dropped). Thread-safe.
#pragma once

#include <chrono>
#include <future>
#include <memory>

#include "client/request_sender.h"
#include "protocol/error_code.h"

namespace spool::client {

template <class Req, class Resp>
Result<Resp> call_sync(RequestSender& sender, const Node& node, Req request, int64_t timeout_ms,
                       SendOptions options = {}) {
  auto promise = std::make_shared<std::promise<Result<Reply<Resp>>>>();
  auto future = promise->get_future();
  send_request<Req, Resp>(
      sender, node, std::move(request),
      [promise](Result<Reply<Resp>> r) { promise->set_value(std::move(r)); }, options);
  if (future.wait_for(std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0))) != std::future_status::ready) {
    return Status::error(std::string(Req::kApiName) + " to node " + std::to_string(node.id) + " got no answer within " +
                             std::to_string(timeout_ms) + " ms",
                         protocol::to_int(protocol::ErrorCode::kRequestTimedOut));
  }
  auto r = future.get();
  if (!r) return r.status();
  return std::move(r->message);
}

}  // namespace spool::client
