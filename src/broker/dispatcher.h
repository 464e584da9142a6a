// Dispatcher: the net::RequestHandler of the broker's listeners. Decodes
// the request header, looks the API up in the handler table
// (handlers/handler_table.h: the same table the ApiVersions answer is built
// from), checks the version and that the API is served on this listener, and
// hands the body to the entry's handler. A frame whose header cannot be decoded, an unknown API key or
// an unsupported version (other than ApiVersions, which gets the KIP-511
// answer) closes that connection with a log line; other clients are
// unaffected. On a SASL listener each connection gets a SaslAuthenticator
// (its net session), which owns every frame until the client is
// authenticated (broker/sasl_authenticator.h); on an SSL listener the
// principal is the client certificate's subject through
// ssl.principal.mapping.rules (User:ANONYMOUS without a certificate; a
// subject no rule maps closes the connection, as Kafka fails it); requests
// carry the connection's principal. With an authorizer the dispatcher applies the
// table's Authz gate (CLUSTER_ACTION for the inter-broker APIs; anyone
// else's connection is closed with a log line); every other API checks in
// its handler. Each request is timed for RequestMetrics (queue and local
// time around its handler, remote, send and total once net reports the
// answer written: metrics/request_metrics.h). Runs on reactor threads;
// never blocks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "broker/broker_context.h"
#include "broker/handlers/handler_table.h"
#include "net/request_handler.h"
#include "security/principal_mapping.h"
#include "security/sasl_listener.h"

namespace spool::broker {

// How one listener of the server is served: its name (Metadata,
// FindCoordinator and DescribeCluster answer with the brokers' endpoints on
// the listener the request came in on) and its roles (the APIs served there).
struct ServedListener {
  std::string name = "PLAINTEXT";
  ListenerSet roles = kClientOnly;
  // Set on a SASL listener: its clients must authenticate first.
  std::shared_ptr<const security::SaslListenerConfig> sasl;
  // Set on an SSL listener: names the principal of a client certificate.
  std::shared_ptr<const security::PrincipalMapper> ssl_principal;
};

class Dispatcher : public net::RequestHandler {
 public:
  // One entry per net::ServerOptions::listeners entry, in the same order.
  explicit Dispatcher(BrokerContext& ctx, std::vector<ServedListener> listeners = {ServedListener{}})
      : ctx_(ctx), listeners_(std::move(listeners)) {}
  std::shared_ptr<net::ConnectionSession> on_connect(const net::ConnectionInfo& conn) override;
  void handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) override;
  // Records the answered request's remote, send and total time
  // (metrics/request_metrics.h).
  void on_answered(const net::ConnectionInfo& conn, const net::ResponseTiming& timing) override;

 private:
  BrokerContext& ctx_;
  const std::vector<ServedListener> listeners_;
};

}  // namespace spool::broker
