// Dispatcher: the net::RequestHandler of the broker. Decodes the request
// header, checks the API and version against protocol's served-API table (the
// same table the ApiVersions answer is built from), and hands the body to the
// API's handler. A frame whose header cannot be decoded, an unknown API key or
// an unsupported version (other than ApiVersions, which gets the KIP-511
// answer) closes that connection with a log line; other clients are
// unaffected. Runs on reactor threads; never blocks.
#pragma once

#include "broker/broker_context.h"
#include "net/request_handler.h"

namespace spool::broker {

class Dispatcher : public net::RequestHandler {
 public:
  explicit Dispatcher(BrokerContext& ctx) : ctx_(ctx) {}
  void handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) override;

 private:
  BrokerContext& ctx_;
};

}  // namespace spool::broker
