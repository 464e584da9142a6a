#include "protocol/header.h"

#include "protocol/api_table.h"
#include "protocol/wire.h"

namespace spool::protocol {

namespace {
constexpr int16_t kApiVersionsKey = 18;

// Header tagged fields carry nothing Spool uses yet; skip them whole.
void skip_tagged_fields(ByteReader& r) {
  const uint32_t n = r.uvarint32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    r.uvarint32();  // tag
    r.skip(r.uvarint32());
  }
}
}  // namespace

bool decode_request_header(ByteReader& r, RequestHeader& out) {
  out = RequestHeader{};
  out.api_key = r.i16();
  out.api_version = r.i16();
  out.correlation_id = r.i32();
  out.client_id = wire::read_nullable_string(r, /*flexible=*/false, /*nullable=*/true);
  if (r.ok() && is_flexible(out.api_key, out.api_version)) skip_tagged_fields(r);
  return r.ok();
}

void encode_request_header(ByteWriter& w, const RequestHeader& h) {
  w.i16(h.api_key);
  w.i16(h.api_version);
  w.i32(h.correlation_id);
  wire::write_nullable_string(w, h.client_id, /*flexible=*/false, /*nullable=*/true);
  if (is_flexible(h.api_key, h.api_version)) w.uvarint(0);
}

bool response_header_flexible(int16_t api_key, int16_t version) {
  return api_key != kApiVersionsKey && is_flexible(api_key, version);
}

void encode_response_header(ByteWriter& w, int32_t correlation_id, bool flexible) {
  w.i32(correlation_id);
  if (flexible) w.uvarint(0);
}

bool decode_response_header(ByteReader& r, bool flexible, int32_t& correlation_id) {
  correlation_id = r.i32();
  if (flexible) skip_tagged_fields(r);
  return r.ok();
}

}  // namespace spool::protocol
