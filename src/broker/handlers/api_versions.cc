// ApiVersions v0-5: the ranges of the handler table served on this listener,
// so the advertised ranges cannot drift from what the dispatcher serves.
// No features are advertised or finalized (so clients stay on the v1
// transaction path: no transaction.version), which makes v4's change
// (SupportedFeatures.MinVersion may be 0) moot.
// - v3+: ClientSoftwareName and ClientSoftwareVersion must match Kafka's
//   pattern ([a-zA-Z0-9], then [a-zA-Z0-9.-]*, ending alphanumeric), else
//   INVALID_REQUEST (with no api keys), as Kafka.
// - v5 (KIP-1242): ClusterId and NodeId name the cluster and node the client
//   believes it talks to. Both absent (null, -1): no check. Only one given:
//   INVALID_REQUEST. Both given and either differs from this broker's:
//   REBOOTSTRAP_REQUIRED (the client rebootstraps).
// A request above v5 gets the KIP-511 answer in the dispatcher.
#include <string_view>

#include "broker/handlers/handlers.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// Kafka's SOFTWARE_NAME_VERSION_PATTERN.
bool valid_software_token(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

void respond_error(const RequestContext& ctx, protocol::ErrorCode e) {
  protocol::ApiVersionsResponse resp;
  resp.error_code = e;
  ctx.respond(resp);
}

}  // namespace

void handle_api_versions(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ApiVersionsRequest req;
  if (!decode_or_close(ctx, body, req, "ApiVersions")) return;
  const int16_t v = ctx.version();
  if (v >= 3 && !(valid_software_token(req.client_software_name) &&
                  valid_software_token(req.client_software_version)))
    return respond_error(ctx, protocol::ErrorCode::kInvalidRequest);
  if (v >= 5 && (req.cluster_id.has_value() || req.node_id != -1)) {
    if (!req.cluster_id.has_value() || req.node_id == -1)
      return respond_error(ctx, protocol::ErrorCode::kInvalidRequest);
    if (*req.cluster_id != b.logs.cluster_id() || req.node_id != b.settings.broker_id)
      return respond_error(ctx, protocol::ErrorCode::kRebootstrapRequired);
  }
  ctx.respond(make_api_versions_response(ctx.roles));
}

}  // namespace spool::broker
