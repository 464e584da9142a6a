// Dispatcher: the net::RequestHandler of one listener of the broker. Decodes
// the request header, looks the API up in the handler table
// (handlers/handler_table.h: the same table the ApiVersions answer is built
// from), checks the version and that the API is served on this listener, and
// hands the body to the entry's handler. A frame whose header cannot be decoded, an unknown API key or
// an unsupported version (other than ApiVersions, which gets the KIP-511
// answer) closes that connection with a log line; other clients are
// unaffected. Runs on reactor threads; never blocks.
#pragma once

#include "broker/broker_context.h"
#include "broker/handlers/handler_table.h"
#include "net/request_handler.h"

namespace spool::broker {

class Dispatcher : public net::RequestHandler {
 public:
  explicit Dispatcher(BrokerContext& ctx, Listener listener = Listener::kClient)
      : ctx_(ctx), listener_(listener), roles_(listeners(listener)) {}
  // A listener playing several roles (cluster mode: kClientAndInterBroker).
  Dispatcher(BrokerContext& ctx, Listener listener, ListenerSet roles)
      : ctx_(ctx), listener_(listener), roles_(roles) {}
  void handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) override;

 private:
  BrokerContext& ctx_;
  Listener listener_;
  ListenerSet roles_;
};

}  // namespace spool::broker
