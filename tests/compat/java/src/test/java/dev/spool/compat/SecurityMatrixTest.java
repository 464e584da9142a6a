// Security matrix (issue 17) with the Java clients 4.4: SASL PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512 on SASL_PLAINTEXT and SASL_SSL, TLS on SSL
// listeners (PEM and PKCS12 trust stores, server name check) and mTLS
// principals with ACLs, all on Kafka's own config keys. One broker for the
// class: the harness's PLAINTEXT listener (the administrator, User:ANONYMOUS
// is a super user) and
//
//   SASLPLAIN  SASL_PLAINTEXT, PLAIN (user_admin) and both SCRAM mechanisms
//   SASLSSL    SASL_SSL, the same, with the encrypted-key PEM keystore
//              (listener.name.saslssl.ssl.key.password)
//   SSL        SSL, ssl.client.auth=none; ssl.keystore.type=PEM and
//              ssl.truststore.type=PEM files
//   MTLS       SSL, client.auth=required, principal mapping
//              RULE:^CN=([^,]+),.*$/$1/L,DEFAULT
//   WRONGHOST  SSL with a CA-signed certificate for DNS:wrong.example only
//
// The SCRAM credentials of User:admin are created through the Admin API
// (alterUserScramCredentials) on the PLAINTEXT listener. Certificates come
// from tests/compat/py/tls_certs.py (a throw-away CA per run). The SASL user
// admin is a super user, so only mTLS needs ACLs; a test waits until
// describeAcls lists a grant before relying on it (the Kafka peer applies ACLs
// through its metadata log).
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ShowBrokerLogOnFailure.class)
class SecurityMatrixTest {
  static final String KEY_PASSWORD = "key-secret-1"; // tls_certs.py
  static final String STORE_PASSWORD = "store-secret-1";
  static final String MAPPING_RULES = "RULE:^CN=([^,]+),.*$/$1/L,DEFAULT";
  static final String USER = "admin"; // a super user
  static final Map<String, String> PASSWORDS = Map.of(
      "PLAIN", "admin-plain-secret", "SCRAM-SHA-256", "admin-256-secret", "SCRAM-SHA-512", "admin-512-secret");
  static final Map<String, String> LISTENERS = new LinkedHashMap<>();
  static {
    LISTENERS.put("SASLPLAIN", "SASL_PLAINTEXT");
    LISTENERS.put("SASLSSL", "SASL_SSL");
    LISTENERS.put("SSL", "SSL");
    LISTENERS.put("MTLS", "SSL");
    LISTENERS.put("WRONGHOST", "SSL");
  }
  static final int N = 24;             // records per round trip (one of them BIG bytes)
  static final int BIG = 200_000;      // spans many TLS records
  static final long FAIL_WITHIN_MS = 20_000;

  TestBroker broker;
  Admin admin;
  Path certs;

  @BeforeAll
  void setUp() throws Exception {
    certs = Files.createTempDirectory("spool-java-tls-");
    Path script = TestBroker.repoRoot().resolve("tests/compat/py/tls_certs.py");
    Process p = new ProcessBuilder("python3", script.toString(), certs.toString()).redirectErrorStream(true)
        .redirectOutput(certs.resolve("tls_certs.log").toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    if (!TestBroker.waitFor(p, 90_000)) {
      p.destroyForcibly();
      fail("tls_certs.py did not finish within 90 s");
    }
    assertEquals(0, p.exitValue(), "tls_certs.py: " + TestBroker.read(certs.resolve("tls_certs.log")));
    assertTrue(Files.exists(cert("truststore.p12")), "tls_certs.py wrote no truststore.p12 (keytool?)");

    String scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
    String plain = "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + USER + "=\""
        + PASSWORDS.get("PLAIN") + "\" user_alice=\"alice-secret\";";
    Map<String, String> o = new LinkedHashMap<>();
    o.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
    for (String l : List.of("saslplain", "saslssl")) {
      o.put("listener.name." + l + ".plain.sasl.jaas.config", plain);
      o.put("listener.name." + l + ".scram-sha-256.sasl.jaas.config", scram);
      o.put("listener.name." + l + ".scram-sha-512.sasl.jaas.config", scram);
    }
    o.put("ssl.keystore.type", "PEM");
    o.put("ssl.keystore.location", cert("server-keystore.pem").toString());
    o.put("ssl.truststore.type", "PEM");
    o.put("ssl.truststore.location", cert("ca.pem").toString());
    o.put("ssl.client.auth", "none");
    o.put("listener.name.saslssl.ssl.keystore.location", cert("server-keystore-enc.pem").toString());
    o.put("listener.name.saslssl.ssl.key.password", KEY_PASSWORD);
    o.put("listener.name.mtls.ssl.client.auth", "required");
    o.put("listener.name.mtls.ssl.principal.mapping.rules", MAPPING_RULES);
    o.put("listener.name.wronghost.ssl.keystore.location", cert("wrong-host-keystore.pem").toString());
    o.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    o.put("super.users", "User:ANONYMOUS;User:" + USER);
    o.put("group.initial.rebalance.delay.ms", "0");
    broker = TestBroker.start(o, LISTENERS);
    admin = Clients.admin(broker.bootstrap());

    // SCRAM credentials: the client salts and hashes, the broker keeps the keys.
    // One request per mechanism: Kafka (KRaft) refuses two alterations of one
    // user in the same request (DUPLICATE_RESOURCE), whatever the mechanisms.
    admin.alterUserScramCredentials(List.of(
        new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
            PASSWORDS.get("SCRAM-SHA-256")))).all().get(30, TimeUnit.SECONDS);
    admin.alterUserScramCredentials(List.of(
        new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
            PASSWORDS.get("SCRAM-SHA-512")))).all().get(30, TimeUnit.SECONDS);
    Set<String> want = Set.of("SCRAM_SHA_256/8192", "SCRAM_SHA_512/4096");
    Set<String>[] have = new Set[] {Set.of()};
    Clients.waitUntil(30_000, () -> {
      try {
        UserScramCredentialsDescription d =
            admin.describeUserScramCredentials(List.of(USER)).all().get(10, TimeUnit.SECONDS).get(USER);
        have[0] = d.credentialInfos().stream().map(i -> i.mechanism() + "/" + i.iterations())
            .collect(Collectors.toSet());
        return have[0].equals(want);
      } catch (Exception e) {
        have[0] = Set.of(e.toString());
        return false;
      }
    }, () -> "SCRAM credentials of " + USER + ": " + have[0] + ", want " + want);
  }

  @AfterAll
  void tearDown() {
    if (admin != null) admin.close(Duration.ofSeconds(10));
    if (broker != null) broker.close();
    if (certs != null && System.getenv("SPOOL_TEST_KEEP_DIRS") == null) TestBroker.deleteTree(certs);
  }

  Path cert(String name) {
    return certs.resolve(name);
  }

  String pem(String name) {
    try {
      return Files.readString(cert(name));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  // -- client security settings ----------------------------------------------------------------

  Map<String, String> trustPem(String caFile) {
    return Map.of(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM",
        SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, cert(caFile).toString());
  }

  Map<String, String> ssl(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>(trustPem("ca.pem"));
    m.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    m.putAll(extra);
    return m;
  }

  /** SSL with a client certificate: a PEM keystore with inline chain and (unencrypted PKCS#8) key. */
  Map<String, String> sslWithCert(String certFile, String keyFile) {
    return ssl(Map.of(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM",
        SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, pem(certFile),
        SslConfigs.SSL_KEYSTORE_KEY_CONFIG, pem(keyFile)));
  }

  Map<String, String> sasl(String listener, String mechanism, String user, String password) {
    Map<String, String> m = new HashMap<>();
    m.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, LISTENERS.get(listener));
    if (LISTENERS.get(listener).equals("SASL_SSL")) m.putAll(trustPem("ca.pem"));
    m.put(SaslConfigs.SASL_MECHANISM, mechanism);
    String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    m.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + password + "\";");
    return m;
  }

  static Properties with(Properties p, Map<String, String> security) {
    p.putAll(security);
    p.put(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG, "100");
    p.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
    return p;
  }

  static Admin adminOn(String bootstrap, Map<String, String> security, int apiTimeoutMs) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(apiTimeoutMs));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(apiTimeoutMs, 10_000)));
    return Admin.create(with(p, security));
  }

  // -- round trips -----------------------------------------------------------------------------

  record Rec(byte[] key, byte[] value) {}

  static List<Rec> records(long seed) {
    Random rnd = new Random(seed);
    List<Rec> out = new ArrayList<>();
    for (int i = 0; i < N - 1; i++) {
      byte[] key = rnd.nextInt(5) == 0 ? null : ("k" + i + "-" + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
      byte[] value = new byte[rnd.nextInt(2000)];
      rnd.nextBytes(value);
      out.add(new Rec(key, value));
    }
    byte[] big = new byte[BIG];
    rnd.nextBytes(big);
    out.add(new Rec("big".getBytes(StandardCharsets.UTF_8), big));
    return out;
  }

  /**
   * Produces N seeded records to partition 0 of `topic` over `security`
   * (acks=all) and reads them back the same way: offsets 0..N-1, exact keys
   * and values. With a group, the consumer subscribes in it and commits
   * (the committed offset is N); else it assigns.
   */
  void roundTrip(String bootstrap, Map<String, String> security, String topic, String group, String what) {
    long seed = Clients.seed("records of " + what);
    List<Rec> recs = records(seed);
    Properties pp = with(Clients.producerProps(bootstrap), security);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    pp.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    List<Long> offsets = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp)) {
      List<Future<RecordMetadata>> fs = new ArrayList<>();
      for (Rec r : recs) fs.add(p.send(new ProducerRecord<>(topic, 0, r.key(), r.value())));
      p.flush();
      for (Future<RecordMetadata> f : fs) {
        RecordMetadata m = Clients.unchecked(() -> f.get(30, TimeUnit.SECONDS));
        assertEquals(0, m.partition());
        offsets.add(m.offset());
      }
    }
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < N; i++) expected.add(i);
    assertEquals(expected, offsets, what + ": send offsets");

    Properties cp = group == null ? Clients.consumerProps(bootstrap, "read_committed")
        : Clients.groupConsumerProps(bootstrap, group, "read_committed");
    with(cp, security);
    cp.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    TopicPartition tp = new TopicPartition(topic, 0);
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
      if (group == null) {
        c.assign(List.of(tp));
        c.seekToBeginning(List.of(tp));
      } else {
        c.subscribe(List.of(topic));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
      while (got.size() < N) {
        if (System.nanoTime() > deadline) fail(what + ": consumed " + got.size() + " of " + N + " records in 45 s");
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Clients.POLL)) got.add(r);
      }
      if (group != null) c.commitSync(Map.of(tp, new OffsetAndMetadata(N)), Duration.ofSeconds(30));
      // Nothing past the N records.
      for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(300))) got.add(r);
    }
    assertEquals(N, got.size(), what + ": records consumed");
    for (int i = 0; i < N; i++) {
      ConsumerRecord<byte[], byte[]> r = got.get(i);
      assertEquals(topic, r.topic());
      assertEquals(0, r.partition());
      assertEquals(i, r.offset(), what + ": offset of record " + i);
      assertArrayEquals(recs.get(i).key(), r.key(), what + ": key at offset " + i);
      assertArrayEquals(recs.get(i).value(), r.value(), what + ": value at offset " + i);
    }
    if (group != null) {
      Map<TopicPartition, OffsetAndMetadata> committed = Clients.unchecked(() ->
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS));
      assertEquals(N, committed.get(tp).offset(), what + ": committed offset of " + group);
    }
  }

  String newTopic(String base) throws Exception {
    String t = Clients.topic(base);
    Clients.createTopic(admin, t, 1, null);
    return t;
  }

  /** The cause of describeCluster's failure over `security` (which must fail within FAIL_WITHIN_MS). */
  static Throwable describeClusterFailure(String bootstrap, Map<String, String> security, int apiTimeoutMs) {
    long t0 = System.nanoTime();
    try (Admin a = adminOn(bootstrap, security, apiTimeoutMs)) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> a.describeCluster().nodes().get(FAIL_WITHIN_MS, TimeUnit.MILLISECONDS),
          "describeCluster succeeded on " + bootstrap);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      Clients.note("describeCluster on " + bootstrap + " failed after " + ms + " ms: " + e.getCause());
      return e.getCause();
    }
  }

  /** describeCluster over `security` succeeds and lists the one node on `bootstrap`'s port. */
  static void describeClusterWorks(String bootstrap, Map<String, String> security) throws Exception {
    try (Admin a = adminOn(bootstrap, security, 20_000)) {
      Collection<Node> nodes = a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
      assertEquals(1, nodes.size(), "nodes " + nodes);
      Node n = nodes.iterator().next();
      assertEquals(bootstrap, n.host() + ":" + n.port(), "the node as advertised on this listener");
    }
  }

  // -- SASL ------------------------------------------------------------------------------------

  static Stream<Arguments> saslMatrix() {
    List<Arguments> out = new ArrayList<>();
    for (String listener : List.of("SASLPLAIN", "SASLSSL")) {
      for (String mech : List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")) out.add(Arguments.of(listener, mech));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("saslMatrix")
  void saslRightPasswordRoundTrips(String listener, String mechanism) throws Exception {
    String topic = newTopic("java-sec-" + mechanism.toLowerCase());
    Map<String, String> sec = sasl(listener, mechanism, USER, PASSWORDS.get(mechanism));
    describeClusterWorks(broker.bootstrap(listener), sec);
    roundTrip(broker.bootstrap(listener), sec, topic, null, mechanism + " on " + listener);
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("saslMatrix")
  void saslWrongPasswordFailsAuthentication(String listener, String mechanism) throws Exception {
    String bootstrap = broker.bootstrap(listener);
    Map<String, String> wrong = sasl(listener, mechanism, USER, "wrong-password");
    assertInstanceOf(SaslAuthenticationException.class, describeClusterFailure(bootstrap, wrong, 15_000));
    // Another mechanism's password is wrong too (SCRAM: the other SCRAM credential).
    String other = mechanism.equals("SCRAM-SHA-512") ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
    assertInstanceOf(SaslAuthenticationException.class,
        describeClusterFailure(bootstrap, sasl(listener, mechanism, USER, PASSWORDS.get(other)), 15_000));
    // The producer surfaces it from partitionsFor.
    Properties pp = with(Clients.producerProps(bootstrap), wrong);
    pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp)) {
      long t0 = System.nanoTime();
      assertThrows(SaslAuthenticationException.class, () -> p.partitionsFor("java-sec-any"));
      assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(FAIL_WITHIN_MS), "partitionsFor took too long");
    }
  }

  @Test
  void plaintextClientOnSaslListenerGetsNoMetadata() throws Exception {
    String bootstrap = broker.bootstrap("SASLPLAIN");
    Throwable cause = describeClusterFailure(bootstrap, Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT"),
        6_000);
    assertInstanceOf(TimeoutException.class, cause);
    assertTrue(broker.alive(), "broker alive");
    // The broker keeps serving good clients on that listener.
    roundTrip(bootstrap, sasl("SASLPLAIN", "SCRAM-SHA-256", USER, PASSWORDS.get("SCRAM-SHA-256")),
        newTopic("java-sec-after-plaintext"), null, "SCRAM-SHA-256 after a PLAINTEXT client");
  }

  // -- SSL -------------------------------------------------------------------------------------

  @Test
  void sslRoundTripWithPemTruststore() throws Exception {
    // Java's default ssl.endpoint.identification.algorithm is https: 127.0.0.1 matches the IP SAN.
    roundTrip(broker.bootstrap("SSL"), ssl(Map.of()), newTopic("java-sec-ssl-pem"), null, "SSL, PEM trust store");
  }

  @Test
  void sslRoundTripWithPkcs12Truststore() throws Exception {
    Map<String, String> sec = Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
        SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12",
        SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, cert("truststore.p12").toString(),
        SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, STORE_PASSWORD);
    roundTrip(broker.bootstrap("SSL"), sec, newTopic("java-sec-ssl-p12"), null, "SSL, PKCS12 trust store");
  }

  @Test
  void sslUntrustedServerCertificateFails() {
    Map<String, String> sec = new HashMap<>(trustPem("other-ca.pem"));
    sec.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    assertInstanceOf(SslAuthenticationException.class, describeClusterFailure(broker.bootstrap("SSL"), sec, 15_000));
    // SASL_SSL checks the server certificate before any SASL.
    Map<String, String> saslSec = sasl("SASLSSL", "PLAIN", USER, PASSWORDS.get("PLAIN"));
    saslSec.putAll(trustPem("other-ca.pem"));
    assertInstanceOf(SslAuthenticationException.class,
        describeClusterFailure(broker.bootstrap("SASLSSL"), saslSec, 15_000));
  }

  @Test
  void sslEndpointIdentification() throws Exception {
    String https = SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG;
    describeClusterWorks(broker.bootstrap("SSL"), ssl(Map.of(https, "https")));
    // Signed by the trusted CA, but for DNS:wrong.example only.
    assertInstanceOf(SslAuthenticationException.class,
        describeClusterFailure(broker.bootstrap("WRONGHOST"), ssl(Map.of(https, "https")), 15_000));
    describeClusterWorks(broker.bootstrap("WRONGHOST"), ssl(Map.of(https, "")));
  }

  // -- mTLS ------------------------------------------------------------------------------------

  @Test
  void mtlsClientCertificateIsPrincipalClient1() throws Exception {
    String bootstrap = broker.bootstrap("MTLS");
    String topic = newTopic("java-sec-mtls");
    String group = "g-" + topic;
    Map<String, String> c1 = sslWithCert("client-1.pem", "client-1.key");

    // Authenticated (describeCluster needs no ACL), but User:client-1 may not use the topic yet.
    describeClusterWorks(bootstrap, c1);
    Properties pp = with(Clients.producerProps(bootstrap), c1);
    pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"); // no InitProducerId: only the topic check
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp)) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> p.send(new ProducerRecord<>(topic, 0, null, new byte[] {1})).get(30, TimeUnit.SECONDS));
      assertInstanceOf(TopicAuthorizationException.class, e.getCause());
      assertEquals(Set.of(topic), ((TopicAuthorizationException) e.getCause()).unauthorizedTopics());
    }
    Properties cp = with(Clients.consumerProps(bootstrap, "read_committed"), c1);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      TopicAuthorizationException denied = null;
      while (denied == null && System.nanoTime() < deadline) {
        try {
          assertTrue(c.poll(Clients.POLL).isEmpty(), "records without READ");
        } catch (TopicAuthorizationException ex) {
          denied = ex;
        }
      }
      assertTrue(denied != null, "the consumer got no TopicAuthorizationException within 20 s");
      assertEquals(Set.of(topic), denied.unauthorizedTopics());
    }

    String principal = "User:client-1";
    grant(new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW)),
        new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", AclOperation.WRITE, AclPermissionType.ALLOW)),
        new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW)),
        new AclBinding(new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW)));
    // Idempotent producer (WRITE on a topic allows InitProducerId), group consumer with a commit.
    roundTrip(bootstrap, c1, topic, group, "mTLS as " + principal);
  }

  @Test
  void mtlsWithoutTrustedClientCertificateFails() {
    String bootstrap = broker.bootstrap("MTLS");
    assertInstanceOf(SslAuthenticationException.class, describeClusterFailure(bootstrap, ssl(Map.of()), 15_000));
    // A certificate with the same subject from a CA the broker does not trust.
    assertInstanceOf(SslAuthenticationException.class,
        describeClusterFailure(bootstrap, sslWithCert("other-client.pem", "other-client.key"), 15_000));
    assertTrue(broker.alive(), "broker alive");
  }

  /** Creates the bindings and waits until describeAcls lists them all. */
  void grant(AclBinding... bindings) throws Exception {
    admin.createAcls(List.of(bindings)).all().get(30, TimeUnit.SECONDS);
    Set<AclBinding> want = new HashSet<>(List.of(bindings));
    Collection<AclBinding>[] have = new Collection[] {List.of()};
    Clients.waitUntil(30_000, () -> {
      have[0] = Clients.unchecked(() -> admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS));
      return have[0].containsAll(want);
    }, () -> "ACLs " + want + " not listed; describeAcls: " + have[0]);
  }
}
