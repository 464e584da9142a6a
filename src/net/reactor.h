// Reactor: one io_context + its thread + the connections pinned to it.
// Internal to net (not part of the public API).
//
// PostGate is how code outside the reactor (Responders on worker threads)
// reaches it: Server::stop() closes the gate before the io_context dies, so a
// Responder that outlives the Server posts into nothing instead of into freed
// memory. The gate does not own the io_context, so no reference cycle keeps a
// stopped reactor alive.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>

namespace spool::net {

class Connection;

class PostGate {
 public:
  explicit PostGate(asio::io_context& ctx) : ctx_(&ctx) {}

  // Returns false (and drops fn) once the gate is closed.
  template <typename Fn>
  bool post(Fn&& fn) {
    std::lock_guard lock(mu_);
    if (ctx_ == nullptr) return false;
    asio::post(*ctx_, std::forward<Fn>(fn));
    return true;
  }
  void close() {
    std::lock_guard lock(mu_);
    ctx_ = nullptr;
  }

 private:
  std::mutex mu_;
  asio::io_context* ctx_;
};

struct Reactor {
  // Concurrency hint 1: exactly one thread runs this context.
  asio::io_context ctx{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{
      asio::make_work_guard(ctx)};
  std::thread thread;
  std::shared_ptr<PostGate> gate = std::make_shared<PostGate>(ctx);
  // Open connections of this reactor; touched only on its thread.
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> conns;
};

}  // namespace spool::net
