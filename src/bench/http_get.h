// A minimal blocking HTTP/1.1 GET client for the bench's operability family
// (operability_workloads.h): one request per TCP connection to a loopback
// port, "Connection: close", the whole answer read until the server closes.
// Only what the admin listener sends is understood: a status line, headers,
// and a body of exactly Content-Length bytes (no chunked encoding, no
// redirects, no TLS).
// Threading: plain functions, safe from any thread. Failure: an error Status
// naming what went wrong (connect refused, timeout, malformed answer, a body
// shorter or longer than Content-Length); a non-2xx status is not a failure,
// it comes back in HttpAnswer::status. Nothing throws.
#pragma once

#include <cstddef>
#include <string>

#include "util/status.h"

namespace spool::bench {

struct HttpAnswer {
  int status = 0;         // e.g. 200, 404
  std::string body;
  double seconds = 0;     // from before connect() until the last byte of the answer arrived
  size_t wire_bytes = 0;  // status line + headers + body as received
};

// GET `path` from 127.0.0.1:`port`; the whole exchange must finish within
// `timeout_s`.
Result<HttpAnswer> http_get(int port, const std::string& path, double timeout_s);

}  // namespace spool::bench
