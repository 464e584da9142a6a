// TLS listener settings (Kafka's ssl.* keys and their per-listener
// overrides), the contexts built from them, and the client certificate's
// subject as the principal mapping rules see it, over in-memory handshakes.
#include "security/tls_context.h"

#include <gtest/gtest.h>

#include <openssl/pkcs12.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/broker_config.h"
#include "security/tls_config.h"
#include "test_certs.h"

namespace spool::security {
namespace {

using spool::testing::TestCerts;

Result<config::BrokerConfig> load(std::vector<std::string> overrides) {
  overrides.push_back("listeners=PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093,MTLS://127.0.0.1:9094");
  overrides.push_back("listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL");
  return config::BrokerConfig::load(std::nullopt, overrides, nullptr);
}

Result<TlsConfig> listener(const std::vector<std::string>& overrides, const std::string& name = "SSL") {
  auto cfg = load(overrides);
  if (!cfg) return cfg.status();
  return tls_listener_config(*cfg, name);
}

// Runs a handshake between two SSLs over memory BIOs; true when both finished.
bool handshake(SSL* client, SSL* server) {
  BIO *c_bio = nullptr, *s_bio = nullptr;
  BIO_new_bio_pair(&c_bio, 0, &s_bio, 0);
  SSL_set_bio(client, c_bio, c_bio);
  SSL_set_bio(server, s_bio, s_bio);
  bool c_done = false, s_done = false;
  for (int i = 0; i < 50 && !(c_done && s_done); ++i) {
    if (!c_done) {
      const int r = SSL_do_handshake(client);
      if (r == 1) c_done = true;
      else if (SSL_get_error(client, r) != SSL_ERROR_WANT_READ) return false;
    }
    if (!s_done) {
      const int r = SSL_do_handshake(server);
      if (r == 1) s_done = true;
      else if (SSL_get_error(server, r) != SSL_ERROR_WANT_READ) return false;
    }
  }
  return c_done && s_done;
}

class TlsContextTest : public ::testing::Test {
 protected:
  std::string server_keys() const {
    return "ssl.keystore.location=" + certs_.path("server.pem");
  }
  std::shared_ptr<const TlsContext> client_context(bool with_cert, const std::string& trust = "ca.pem") {
    TlsConfig c;
    c.truststore = TlsStore{"PEM", certs_.path(trust), "", "", ""};
    if (with_cert) c.keystore = TlsStore{"PEM", certs_.path("client.pem"), "", "", ""};
    auto ctx = TlsContext::create(c, TlsContext::Side::kClient);
    EXPECT_TRUE(ctx.is_ok()) << ctx.status().message();
    return ctx.is_ok() ? *ctx : nullptr;
  }
  std::shared_ptr<const TlsContext> server_context(const std::vector<std::string>& overrides,
                                                   const std::string& name = "SSL") {
    auto c = listener(overrides, name);
    EXPECT_TRUE(c.is_ok()) << c.status().message();
    if (!c) return nullptr;
    auto ctx = TlsContext::create(*c, TlsContext::Side::kServer);
    EXPECT_TRUE(ctx.is_ok()) << ctx.status().message();
    return ctx.is_ok() ? *ctx : nullptr;
  }

  TestCerts certs_;
};

TEST_F(TlsContextTest, KafkasKeysWithPerListenerOverrides) {
  auto c = listener({"ssl.keystore.type=PEM", server_keys(), "ssl.truststore.type=PEM",
                     "ssl.truststore.location=" + certs_.path("ca.pem"), "listener.name.mtls.ssl.client.auth=required",
                     "ssl.enabled.protocols=TLSv1.3", "listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=(.*)$/$1/"},
                    "MTLS");
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->keystore.type, "PEM");
  EXPECT_EQ(c->keystore.location, certs_.path("server.pem"));
  EXPECT_EQ(c->client_auth, TlsClientAuth::kRequired);
  EXPECT_EQ(c->protocols, std::vector<std::string>{"TLSv1.3"});
  EXPECT_EQ(c->principal_mapping_rules, "RULE:^CN=(.*)$/$1/");
  // The override belongs to MTLS only.
  auto plain = listener({"ssl.keystore.type=PEM", server_keys(), "listener.name.mtls.ssl.client.auth=required"});
  ASSERT_TRUE(plain.is_ok()) << plain.status().message();
  EXPECT_EQ(plain->client_auth, TlsClientAuth::kNone);
  EXPECT_EQ(plain->principal_mapping_rules, "DEFAULT");
}

TEST_F(TlsContextTest, RefusalsNameTheKey) {
  auto none = listener({"ssl.keystore.type=PEM"});
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.status().message().find("ssl.keystore.location"), std::string::npos) << none.status().message();
  auto jks = listener({server_keys()});  // Kafka's default type is JKS
  ASSERT_FALSE(jks.is_ok());
  EXPECT_NE(jks.status().message().find("JKS"), std::string::npos) << jks.status().message();
  auto no_trust = listener({"ssl.keystore.type=PEM", server_keys(), "ssl.client.auth=required"});
  ASSERT_FALSE(no_trust.is_ok());
  EXPECT_NE(no_trust.status().message().find("truststore"), std::string::npos);
  auto old = listener({"ssl.keystore.type=PEM", server_keys(), "ssl.enabled.protocols=TLSv1.1,TLSv1.2"});
  ASSERT_FALSE(old.is_ok());
  EXPECT_NE(old.status().message().find("TLSv1.1"), std::string::npos);
  auto inline_jks = listener({"ssl.keystore.key=" + certs_.server.key_pem,
                              "ssl.keystore.certificate.chain=" + certs_.server.cert_pem});
  ASSERT_FALSE(inline_jks.is_ok());
  EXPECT_NE(inline_jks.status().message().find("ssl.keystore.type"), std::string::npos);
}

TEST_F(TlsContextTest, ContextErrorsCarryTheReason) {
  auto c = listener({"ssl.keystore.type=PEM", "ssl.keystore.location=" + certs_.path("missing.pem")});
  ASSERT_TRUE(c.is_ok());
  auto ctx = TlsContext::create(*c, TlsContext::Side::kServer);
  ASSERT_FALSE(ctx.is_ok());
  EXPECT_NE(ctx.status().message().find("missing.pem"), std::string::npos);

  certs_.write("enc.pem", certs_.encrypted_server_pem("k3y-pass"));
  auto wrong = listener({"ssl.keystore.type=PEM", "ssl.keystore.location=" + certs_.path("enc.pem"),
                         "ssl.key.password=nope"});
  ASSERT_TRUE(wrong.is_ok());
  auto bad = TlsContext::create(*wrong, TlsContext::Side::kServer);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().message().find("nope"), std::string::npos) << "a password must never be echoed";

  certs_.write("mismatch.pem", certs_.client.key_pem + certs_.server.cert_pem);
  auto mismatch = listener({"ssl.keystore.type=PEM", "ssl.keystore.location=" + certs_.path("mismatch.pem")});
  ASSERT_TRUE(mismatch.is_ok());
  auto m = TlsContext::create(*mismatch, TlsContext::Side::kServer);
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("does not match"), std::string::npos) << m.status().message();

  auto ciphers = listener({"ssl.keystore.type=PEM", server_keys(), "ssl.cipher.suites=TLS_NO_SUCH_SUITE"});
  ASSERT_TRUE(ciphers.is_ok());
  auto cs = TlsContext::create(*ciphers, TlsContext::Side::kServer);
  ASSERT_FALSE(cs.is_ok());
  EXPECT_NE(cs.status().message().find("TLS_NO_SUCH_SUITE"), std::string::npos);
}

TEST_F(TlsContextTest, EncryptedAndInlineAndPkcs12KeystoresHandshake) {
  certs_.write("enc.pem", certs_.encrypted_server_pem("k3y-pass"));
  // Inline PEM as a properties value often arrives: on one line.
  std::string one_line_key = certs_.server.key_pem, one_line_chain = certs_.server.cert_pem;
  for (auto* s : {&one_line_key, &one_line_chain}) std::replace(s->begin(), s->end(), '\n', ' ');

  // PKCS12 holding the server's key and chain.
  BIO* kb = BIO_new_mem_buf(certs_.server.key_pem.data(), -1);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  BIO_free(kb);
  BIO* cb = BIO_new_mem_buf(certs_.server.cert_pem.data(), -1);
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  BIO_free(cb);
  PKCS12* p12 = PKCS12_create("p12-pass", "spool", key, cert, nullptr, 0, 0, 0, 0, 0);
  BIO* out = BIO_new_file(certs_.path("server.p12").c_str(), "wb");
  i2d_PKCS12_bio(out, p12);
  BIO_free(out);
  PKCS12_free(p12);
  X509_free(cert);
  EVP_PKEY_free(key);

  const std::vector<std::vector<std::string>> variants = {
      {"ssl.keystore.type=PEM", "ssl.keystore.location=" + certs_.path("enc.pem"), "ssl.key.password=k3y-pass"},
      {"ssl.keystore.type=PEM", "ssl.keystore.key=" + one_line_key, "ssl.keystore.certificate.chain=" + one_line_chain},
      {"ssl.keystore.type=PKCS12", "ssl.keystore.location=" + certs_.path("server.p12"),
       "ssl.keystore.password=p12-pass"},
  };
  auto client = client_context(false);
  for (const auto& v : variants) {
    auto server = server_context(v);
    ASSERT_TRUE(server && client) << v[1];
    SSL* s = server->new_server_session();
    SSL* c = client->new_client_session("localhost");
    EXPECT_TRUE(handshake(c, s)) << v[1] << ": " << openssl_errors("");
    SSL_free(s);
    SSL_free(c);
  }
}

TEST_F(TlsContextTest, ClientCertificateSubjectIsWhatJavaPrints) {
  auto server = server_context({"ssl.keystore.type=PEM", server_keys(), "ssl.truststore.type=PEM",
                                "ssl.truststore.location=" + certs_.path("ca.pem"),
                                "listener.name.mtls.ssl.client.auth=required"},
                               "MTLS");
  ASSERT_TRUE(server);
  {
    SSL* s = server->new_server_session();
    SSL* c = client_context(true)->new_client_session("localhost");
    ASSERT_TRUE(handshake(c, s)) << openssl_errors("");
    EXPECT_EQ(peer_distinguished_name(s), "CN=client-1,OU=eng,O=Spool,C=NO");
    SSL_free(s);
    SSL_free(c);
  }
  {  // Required: no certificate, no session.
    SSL* s = server->new_server_session();
    SSL* c = client_context(false)->new_client_session("localhost");
    EXPECT_FALSE(handshake(c, s));
    SSL_free(s);
    SSL_free(c);
  }
  {  // A certificate from a CA the broker does not trust.
    certs_.write("intruder.pem", certs_.untrusted_client.key_pem + certs_.untrusted_client.cert_pem);
    TlsConfig cc;
    cc.truststore = TlsStore{"PEM", certs_.path("ca.pem"), "", "", ""};
    cc.keystore = TlsStore{"PEM", certs_.path("intruder.pem"), "", "", ""};
    auto intruder = TlsContext::create(cc, TlsContext::Side::kClient);
    ASSERT_TRUE(intruder.is_ok()) << intruder.status().message();
    SSL* s = server->new_server_session();
    SSL* c = (*intruder)->new_client_session("localhost");
    EXPECT_FALSE(handshake(c, s));
    SSL_free(s);
    SSL_free(c);
  }
  openssl_errors("");
}

TEST_F(TlsContextTest, ClientChecksTheServersChainAndName) {
  auto server = server_context({"ssl.keystore.type=PEM", server_keys()});
  ASSERT_TRUE(server);
  struct Case {
    std::string trust, host;
    bool ok;
  };
  for (const Case& k : {Case{"ca.pem", "localhost", true}, Case{"ca.pem", "127.0.0.1", true},
                        Case{"other-ca.pem", "localhost", false}, Case{"ca.pem", "wrong.example", false}}) {
    SSL* s = server->new_server_session();
    SSL* c = client_context(false, k.trust)->new_client_session(k.host);
    EXPECT_EQ(handshake(c, s), k.ok) << k.trust << " " << k.host;
    SSL_free(s);
    SSL_free(c);
  }
  openssl_errors("");
}

TEST_F(TlsContextTest, CipherSuitesUseIanaNames) {
  auto server = server_context({"ssl.keystore.type=PEM", server_keys(),
                                "ssl.cipher.suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"});
  ASSERT_TRUE(server);
  SSL* s = server->new_server_session();
  SSL* c = client_context(false)->new_client_session("localhost");
  ASSERT_TRUE(handshake(c, s)) << openssl_errors("");
  // Only a TLS 1.2 suite was named, so TLS 1.3 is off.
  EXPECT_STREQ(SSL_get_version(s), "TLSv1.2");
  EXPECT_STREQ(SSL_CIPHER_standard_name(SSL_get_current_cipher(s)), "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
  SSL_free(s);
  SSL_free(c);
}

}  // namespace
}  // namespace spool::security
