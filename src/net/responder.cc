#include "net/responder.h"

#include <string>

#include "net/connection.h"

namespace spool::net {

void Responder::send(Bytes response) {
  if (slot_) slot_->resolve(SlotState::kReady, Response(std::move(response)), std::string());
}

void Responder::send(Response response) {
  if (slot_) slot_->resolve(SlotState::kReady, std::move(response), std::string());
}

void Responder::send_authenticated(Response response) {
  if (slot_) slot_->resolve(SlotState::kReadyAuthenticated, std::move(response), std::string());
}

void Responder::send_then_close(Response response, std::string_view reason) {
  if (slot_) slot_->resolve(SlotState::kReadyThenClose, std::move(response), std::string(reason));
}

void Responder::no_response(int32_t mute_ms, int32_t tag) {
  Response none;
  none.mute_ms = mute_ms;
  none.timing.tag = tag;
  if (slot_) slot_->resolve(SlotState::kNoResponse, std::move(none), std::string());
}

void Responder::close(std::string_view reason) {
  if (slot_) slot_->resolve(SlotState::kClose, Response(), std::string(reason));
}

asio::any_io_executor Responder::executor() const {
  return slot_ ? slot_->executor() : asio::any_io_executor();
}

int64_t Responder::received_ns() const { return slot_ ? slot_->received_ns() : 0; }

}  // namespace spool::net
