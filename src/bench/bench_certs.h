// Throw-away TLS material for the security family of `spool bench`, made
// in-process with OpenSSL 3 (no openssl or keytool command needed): a CA
// and a server certificate it signs, both EC P-256 with SHA-256 signatures,
// valid from an hour ago for two days. The server certificate names
// CN=localhost with subjectAltName DNS:localhost and IP:127.0.0.1
// (serverAuth), so a client that checks the broker's name (librdkafka's
// default ssl.endpoint.identification.algorithm=https) accepts 127.0.0.1.
// Files written into `dir` (created if missing):
//   ca.pem               the CA certificate: the clients' ssl.ca.location and
//                        the brokers' ssl.truststore.location (type PEM)
//   server-keystore.pem  the server's unencrypted PKCS#8 key, its certificate
//                        and the CA's (mode 0600): Kafka's
//                        ssl.keystore.type=PEM + ssl.keystore.location
// Plain function, no state. Failure: an error Status naming the OpenSSL call
// or the file; nothing throws.
#pragma once

#include <string>

#include "util/status.h"

namespace spool::bench {

struct BenchCerts {
  std::string ca_file;        // <dir>/ca.pem
  std::string keystore_file;  // <dir>/server-keystore.pem
};

Result<BenchCerts> generate_bench_certs(const std::string& dir);

}  // namespace spool::bench
