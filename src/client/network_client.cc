#include "client/network_client.h"

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <spdlog/spdlog.h>

#include <exception>
#include <random>
#include <unordered_map>
#include <utility>

#include "client/node_connection.h"
#include "protocol/error_code.h"

namespace spool::client {

namespace {

Status shut_down_status() {
  return Status::error("network client is shut down", protocol::to_int(protocol::ErrorCode::kNetworkException));
}

std::string node_key(const Node& n) { return n.host + ":" + std::to_string(n.port); }

}  // namespace

struct NetworkClient::Io {
  asio::io_context ctx{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{ctx.get_executor()};
  // Only touched on the I/O thread.
  std::unordered_map<std::string, std::shared_ptr<NodeConnection>> connections;
  bool stopped = false;  // shutdown ran on the I/O thread
  uint64_t seed = 0;
};

NetworkClient::NetworkClient(NetworkClientOptions options) : options_(std::move(options)), io_(std::make_unique<Io>()) {
  io_->seed = options_.seed != 0 ? options_.seed : std::random_device{}();
  spdlog::debug("client: network client '{}' started (backoff jitter seed {})", options_.client_id, io_->seed);
  thread_ = std::thread([this] {
    while (true) {
      try {
        io_->ctx.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("client: I/O thread caught an exception: {}", e.what());
      } catch (...) {
        spdlog::error("client: I/O thread caught an unknown exception");
      }
    }
  });
}

NetworkClient::~NetworkClient() {
  shutdown();
  if (thread_.joinable()) thread_.join();
}

NodeConnection& NetworkClient::connection_for(const Node& node) {
  auto& slot = io_->connections[node_key(node)];
  if (!slot) {
    // Each destination gets its own jitter stream, derived from the seed.
    slot = std::make_shared<NodeConnection>(io_->ctx, options_, node, io_->seed + io_->connections.size());
  }
  return *slot;
}

void NetworkClient::post(std::function<void()> fn, const std::function<void()>& refused) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      asio::post(io_->ctx, std::move(fn));
      return;
    }
  }
  refused();
}

void NetworkClient::send(const Node& node, RawRequest request, RawCallback callback) {
  auto cb = std::make_shared<RawCallback>(std::move(callback));
  post(
      [this, node, request = std::move(request), cb]() mutable {
        if (io_->stopped) {
          (*cb)(shut_down_status());
          return;
        }
        connection_for(node).submit(std::move(request), std::move(*cb));
      },
      [cb] { (*cb)(shut_down_status()); });
}

void NetworkClient::send(const Node& node, int16_t api_key, int16_t version, Bytes body, RawCallback callback,
                         int32_t timeout_ms) {
  RawRequest r;
  r.api_key = api_key;
  r.min_version = version;
  r.max_version = version;
  r.timeout_ms = timeout_ms;
  auto shared = std::make_shared<const Bytes>(std::move(body));
  r.encode = [shared](ByteWriter& w, int16_t) { w.bytes(ByteSpan(shared->data(), shared->size())); };
  send(node, std::move(r), std::move(callback));
}

void NetworkClient::disconnect(const Node& node) {
  post(
      [this, node] {
        auto it = io_->connections.find(node_key(node));
        if (it == io_->connections.end()) return;
        it->second->close(Status::error("connection to node " + std::to_string(node.id) + " (" + node_key(node) +
                                            ") closed by the caller",
                                        protocol::to_int(protocol::ErrorCode::kNetworkException)),
                          /*backoff=*/false);
      },
      [] {});
}

void NetworkClient::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      closed_ = true;
      asio::post(io_->ctx, [this] {
        io_->stopped = true;
        for (auto& [key, conn] : io_->connections) conn->close(shut_down_status(), /*backoff=*/false);
        io_->connections.clear();
      });
      io_->work.reset();
    }
  }
  if (std::this_thread::get_id() == thread_.get_id()) return;  // from a callback: the destructor joins
  if (thread_.joinable()) thread_.join();
}

}  // namespace spool::client
