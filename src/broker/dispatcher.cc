#include "broker/dispatcher.h"

#include <spdlog/spdlog.h>

#include "broker/handlers/handlers.h"
#include "protocol/api_table.h"

namespace spool::broker {

void Dispatcher::handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) {
  ByteReader r(frame.data(), frame.size());
  RequestContext ctx{{}, conn, std::move(responder)};
  if (!protocol::decode_request_header(r, ctx.header)) {
    ctx.close("undecodable request header");
    return;
  }
  const auto& h = ctx.header;
  const protocol::ApiRange* api = protocol::find_api(h.api_key);
  if (h.api_key == 18 && (api == nullptr || h.api_version > api->max_version)) {
    // KIP-511: a client newer than us learns our range from a v0-shaped answer.
    ctx.responder.send(protocol::encode_unsupported_api_versions(h.correlation_id));
    return;
  }
  if (api == nullptr) {
    ctx.close("unknown api key " + std::to_string(h.api_key));
    return;
  }
  if (h.api_version < api->min_version || h.api_version > api->max_version) {
    ctx.close(fmt::format("unsupported version {} of {} (serving {}..{})", h.api_version, api->name,
                          api->min_version, api->max_version));
    return;
  }
  switch (h.api_key) {
    case 0: return handle_produce(ctx_, ctx, r);
    case 1: return handle_fetch(ctx_, ctx, r);
    case 2: return handle_list_offsets(ctx_, ctx, r);
    case 3: return handle_metadata(ctx_, ctx, r);
    case 8: return handle_offset_commit(ctx_, ctx, r);
    case 9: return handle_offset_fetch(ctx_, ctx, r);
    case 10: return handle_find_coordinator(ctx_, ctx, r);
    case 11: return handle_join_group(ctx_, ctx, r);
    case 12: return handle_heartbeat(ctx_, ctx, r);
    case 13: return handle_leave_group(ctx_, ctx, r);
    case 14: return handle_sync_group(ctx_, ctx, r);
    case 15: return handle_describe_groups(ctx_, ctx, r);
    case 16: return handle_list_groups(ctx_, ctx, r);
    case 18: return handle_api_versions(ctx_, ctx, r);
    case 19: return handle_create_topics(ctx_, ctx, r);
    case 20: return handle_delete_topics(ctx_, ctx, r);
    case 21: return handle_delete_records(ctx_, ctx, r);
    case 22: return handle_init_producer_id(ctx_, ctx, r);
    case 24: return handle_add_partitions_to_txn(ctx_, ctx, r);
    case 25: return handle_add_offsets_to_txn(ctx_, ctx, r);
    case 26: return handle_end_txn(ctx_, ctx, r);
    case 27: return handle_write_txn_markers(ctx_, ctx, r);
    case 28: return handle_txn_offset_commit(ctx_, ctx, r);
    case 32: return handle_describe_configs(ctx_, ctx, r);
    case 33: return handle_alter_configs(ctx_, ctx, r);
    case 35: return handle_describe_log_dirs(ctx_, ctx, r);
    case 37: return handle_create_partitions(ctx_, ctx, r);
    case 42: return handle_delete_groups(ctx_, ctx, r);
    case 44: return handle_incremental_alter_configs(ctx_, ctx, r);
    case 47: return handle_offset_delete(ctx_, ctx, r);
    case 60: return handle_describe_cluster(ctx_, ctx, r);
    case 61: return handle_describe_producers(ctx_, ctx, r);
    case 65: return handle_describe_transactions(ctx_, ctx, r);
    case 66: return handle_list_transactions(ctx_, ctx, r);
    default:
      ctx.close(fmt::format("api {} is in the table but has no handler", api->name));
  }
}

}  // namespace spool::broker
