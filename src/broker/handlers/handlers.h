// One entry point per API family; each lives in its own file in this folder.
// A handler decodes the body at ctx.version(), validates it, acts through the
// BrokerContext, and answers exactly once through ctx (possibly later, from
// another thread). An undecodable body closes the connection.
#pragma once

#include "broker/broker_context.h"
#include "broker/request_context.h"
#include "util/bytes.h"

namespace spool::broker {

void handle_api_versions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_produce(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_offsets(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_create_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_topics(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_create_partitions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_records(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_incremental_alter_configs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_log_dirs(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_cluster(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
// Consumer groups (issue 5).
void handle_find_coordinator(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_join_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_sync_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_heartbeat(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_leave_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_offset_delete(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_delete_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
// Idempotent producers (issue 6).
void handle_init_producer_id(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
// Transactions (issue 6).
void handle_add_partitions_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_add_offsets_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_end_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_txn_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_list_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_write_txn_markers(BrokerContext& b, const RequestContext& ctx, ByteReader& body);
void handle_describe_producers(BrokerContext& b, const RequestContext& ctx, ByteReader& body);

// Decodes `req` from body, or closes the connection with a log line naming
// the API and returns false. Trailing bytes after the body are refused too.
template <typename Request>
bool decode_or_close(const RequestContext& ctx, ByteReader& body, Request& req, const char* api) {
  if (req.decode(body, ctx.version()) && body.ok() && body.remaining() == 0) return true;
  ctx.close(std::string("undecodable ") + api + " v" + std::to_string(ctx.version()) + " request");
  return false;
}

}  // namespace spool::broker
