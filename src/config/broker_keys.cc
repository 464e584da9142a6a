// The broker key table: every key of Kafka 3.x's broker configuration (names,
// types, defaults and validators as Kafka documents them) plus Spool's own
// keys. Keys marked Y are read by Spool today; N keys are harmless to ignore
// (accepted so an existing server.properties starts, reported in one warning
// line); R keys restrict access or promise safety, and any value but their
// off value stops the start with the reason given (refusal.h). A later change
// that implements an R key turns it into Y.
#include "config/config_def.h"

namespace spool::config {
namespace {

constexpr ConfigType B = ConfigType::kBoolean, S = ConfigType::kShort, I = ConfigType::kInt,
                     L = ConfigType::kLong, D = ConfigType::kDouble, Str = ConfigType::kString,
                     Lst = ConfigType::kList, C = ConfigType::kClass, P = ConfigType::kPassword;
constexpr Acts Y = Acts::kYes, N = Acts::kNo, R = Acts::kRefused;

// Why a kRefused key stops the start (config_def.h).
constexpr const char* kTls = "TLS is not supported yet";
constexpr const char* kSasl = "SASL authentication is not supported yet";
constexpr const char* kQuota = "this quota is not enforced yet (client byte-rate and request quotas are)";
constexpr const char* kQuotaCallback = "custom client quota callbacks are not supported";
constexpr const char* kCluster = "ZooKeeper-to-KRaft migration is not supported";
constexpr const char* kZk = "Spool has no SASL or TLS for its ZooKeeper session, so secure ACLs and ZooKeeper TLS cannot be applied";
constexpr const char* kTiered = "tiered storage is not supported yet";
constexpr const char* kPolicy = "create/alter topic policies are not supported yet";
constexpr const char* kDelegation = "delegation tokens are not supported yet";
constexpr const char* kPasswords = "encrypted dynamic password configs are not supported yet";
constexpr const char* kPrincipal = "authentication is not supported yet, so principals cannot be built or mapped";
constexpr const char* kListener = "only a PLAINTEXT listener is served yet";
constexpr const char* null = nullptr;
#define INT_MAX_S "2147483647"
#define LONG_MAX_S "9223372036854775807"

constexpr KeyDef kBrokerKeys[] = {
    // ---- Spool's own keys
    {"admin.listener", Str, "http://127.0.0.1:9644", no_check(), Y},  // broker/admin_api/admin_listener.h
    {"admin.listener.authentication", Str, "none", one_of("none|basic"), Y},  // broker/admin_api/admin_auth.h
    {"admin.metrics.consumer.lag", B, "false", no_check(), Y},  // /metrics: kafka_consumergroup_lag (metrics_text.cc)
    {"durable.writes", B, "true", no_check(), Y},
    {"reactor.threads", I, "0", at_least(0), Y},
    {"log.level", Str, "info", one_of("trace|debug|info|warn|error"), Y},
    {"log.format", Str, "text", one_of("text|json"), Y},

    // ---- ZooKeeper
    {"zookeeper.connect", Str, null, no_check(), Y},
    {"zookeeper.session.timeout.ms", I, "18000", no_check(), Y},
    {"zookeeper.connection.timeout.ms", I, null, no_check(), Y},
    {"zookeeper.sync.time.ms", I, "2000", no_check(), N},
    {"zookeeper.set.acl", B, "false", no_check(), R, kZk},
    {"zookeeper.max.in.flight.requests", I, "10", at_least(1), N},
    {"zookeeper.ssl.client.enable", B, "false", no_check(), R, kZk},
    {"zookeeper.clientCnxnSocket", Str, null, no_check(), R, kZk},
    {"zookeeper.ssl.keystore.location", Str, null, no_check(), R, kZk},
    {"zookeeper.ssl.keystore.password", P, null, no_check(), R, kZk},
    {"zookeeper.ssl.keystore.type", Str, null, no_check(), R, kZk},
    {"zookeeper.ssl.truststore.location", Str, null, no_check(), R, kZk},
    {"zookeeper.ssl.truststore.password", P, null, no_check(), R, kZk},
    {"zookeeper.ssl.truststore.type", Str, null, no_check(), R, kZk},
    {"zookeeper.ssl.protocol", Str, "TLSv1.2", no_check(), R, kZk},
    {"zookeeper.ssl.enabled.protocols", Lst, null, no_check(), R, kZk},
    {"zookeeper.ssl.cipher.suites", Lst, null, no_check(), R, kZk},
    {"zookeeper.ssl.endpoint.identification.algorithm", Str, "HTTPS", no_check(), R, kZk},
    {"zookeeper.ssl.crl.enable", B, "false", no_check(), R, kZk},
    {"zookeeper.ssl.ocsp.enable", B, "false", no_check(), R, kZk},
    {"zookeeper.metadata.migration.enable", B, "false", no_check(), R, kCluster},
    {"zookeeper.metadata.migration.min.batch.size", I, "200", at_least(1), N},

    // ---- General
    {"broker.id.generation.enable", B, "true", no_check(), N},
    {"reserved.broker.max.id", I, "1000", at_least(0), N},
    {"broker.id", I, "-1", no_check(), Y},
    {"message.max.bytes", I, "1048588", at_least(0), Y},
    {"num.network.threads", I, "3", at_least(1), N},
    {"num.io.threads", I, "8", at_least(1), N},
    {"num.replica.alter.log.dirs.threads", I, null, no_check(), N},
    {"background.threads", I, "10", at_least(1), N},
    {"queued.max.requests", I, "500", at_least(1), N},
    {"queued.max.request.bytes", L, "-1", no_check(), Y},
    {"request.timeout.ms", I, "30000", no_check(), N},
    {"socket.connection.setup.timeout.ms", L, "10000", no_check(), N},
    {"socket.connection.setup.timeout.max.ms", L, "30000", no_check(), N},
    {"server.max.startup.time.ms", L, LONG_MAX_S, at_least(0), N},
    {"unstable.api.versions.enable", B, "false", no_check(), N},
    {"unstable.metadata.versions.enable", B, "false", no_check(), N},
    {"unstable.feature.versions.enable", B, "false", no_check(), N},
    {"eligible.leader.replicas.enable", B, "false", no_check(), N},
    {"config.providers", Lst, "", no_check(), N},
    // Removed in Kafka 3.0 but still found in older server.properties files.
    {"port", I, "9092", between(0, 65535), N},
    {"host.name", Str, "", no_check(), N},
    {"advertised.host.name", Str, null, no_check(), N},
    {"advertised.port", I, null, between(0, 65535), N},

    // ---- KRaft
    {"process.roles", Lst, "", list_of("broker|controller"), N},
    {"node.id", I, "-1", no_check(), N},
    {"initial.broker.registration.timeout.ms", I, "60000", no_check(), N},
    {"broker.heartbeat.interval.ms", I, "2000", no_check(), N},
    {"broker.session.timeout.ms", I, "9000", no_check(), N},
    {"controller.listener.names", Str, null, no_check(), N},
    {"sasl.mechanism.controller.protocol", Str, "GSSAPI", no_check(), R, kSasl},
    {"metadata.log.dir", Str, null, no_check(), N},
    {"metadata.log.segment.bytes", I, "1073741824", at_least(12), N},
    {"metadata.log.segment.min.bytes", I, "8388608", at_least(12), N},
    {"metadata.log.segment.ms", L, "604800000", no_check(), N},
    {"metadata.log.max.record.bytes.between.snapshots", L, "20971520", at_least(1), N},
    {"metadata.log.max.snapshot.interval.ms", L, "3600000", at_least(0), N},
    {"metadata.max.retention.bytes", L, "104857600", no_check(), N},
    {"metadata.max.retention.ms", L, "604800000", no_check(), N},
    {"metadata.max.idle.interval.ms", I, "500", at_least(0), N},
    {"controller.quorum.voters", Lst, "", no_check(), N},
    {"controller.quorum.bootstrap.servers", Lst, "", no_check(), N},
    {"controller.quorum.election.timeout.ms", I, "1000", no_check(), N},
    {"controller.quorum.fetch.timeout.ms", I, "2000", no_check(), N},
    {"controller.quorum.election.backoff.max.ms", I, "1000", no_check(), N},
    {"controller.quorum.append.linger.ms", I, "25", no_check(), N},
    {"controller.quorum.request.timeout.ms", I, "2000", no_check(), N},
    {"controller.quorum.retry.backoff.ms", I, "20", no_check(), N},

    // ---- Authorizer
    // Checked by security/authorizer_config.h (spool broker refuses an unknown class).
    {"authorizer.class.name", Str, "", no_check(), Y},
    {"allow.everyone.if.no.acl.found", B, "false", no_check(), Y},
    {"super.users", Str, null, no_check(), Y},

    // ---- Socket server
    {"listeners", Str, "PLAINTEXT://:9092", no_check(), Y},
    {"advertised.listeners", Str, null, no_check(), Y},
    {"listener.security.protocol.map", Str, "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL", no_check(), Y},
    {"early.start.listeners", Str, null, no_check(), N},
    {"control.plane.listener.name", Str, null, no_check(), Y},
    {"socket.send.buffer.bytes", I, "102400", no_check(), N},
    {"socket.receive.buffer.bytes", I, "102400", no_check(), N},
    {"socket.request.max.bytes", I, "104857600", at_least(1), Y},
    {"socket.listen.backlog.size", I, "50", at_least(1), N},
    {"max.connections.per.ip", I, INT_MAX_S, at_least(0), Y},
    {"max.connections.per.ip.overrides", Str, "", host_counts(), Y},
    {"max.connections", I, INT_MAX_S, at_least(0), Y},
    {"max.connection.creation.rate", I, INT_MAX_S, at_least(0), Y},
    {"connections.max.idle.ms", L, "600000", no_check(), Y},
    {"connection.failed.authentication.delay.ms", I, "100", at_least(0), Y},
    {"broker.rack", Str, null, no_check(), Y},

    // ---- Log
    {"num.partitions", I, "1", at_least(1), Y},
    {"log.dir", Str, "/tmp/kafka-logs", no_check(), Y},
    {"log.dirs", Str, null, no_check(), Y},
    {"log.segment.bytes", I, "1073741824", at_least(14), Y},
    {"log.roll.ms", L, null, at_least(1), Y},
    {"log.roll.hours", I, "168", at_least(1), Y},
    {"log.roll.jitter.ms", L, null, at_least(0), N},
    {"log.roll.jitter.hours", I, "0", at_least(0), N},
    {"log.retention.ms", L, null, no_check(), Y},
    {"log.retention.minutes", I, null, no_check(), Y},
    {"log.retention.hours", I, "168", no_check(), Y},
    {"log.retention.bytes", L, "-1", no_check(), Y},
    {"log.retention.check.interval.ms", L, "300000", at_least(1), Y},
    {"log.cleanup.policy", Lst, "delete", list_of("compact|delete"), Y},
    {"log.cleaner.threads", I, "1", at_least(0), N},
    {"log.cleaner.io.max.bytes.per.second", D, "1.7976931348623157E308", no_check(), N},
    {"log.cleaner.dedupe.buffer.size", L, "134217728", no_check(), Y},
    {"log.cleaner.io.buffer.size", I, "524288", at_least(0), N},
    {"log.cleaner.io.buffer.load.factor", D, "0.9", no_check(), N},
    {"log.cleaner.backoff.ms", L, "15000", at_least(0), Y},
    {"log.cleaner.min.cleanable.ratio", D, "0.5", dbetween(0, 1), Y},
    {"log.cleaner.enable", B, "true", no_check(), Y},
    {"log.cleaner.delete.retention.ms", L, "86400000", at_least(0), Y},
    {"log.cleaner.min.compaction.lag.ms", L, "0", at_least(0), Y},
    {"log.cleaner.max.compaction.lag.ms", L, LONG_MAX_S, at_least(1), Y},
    {"log.index.size.max.bytes", I, "10485760", at_least(4), Y},
    {"log.index.interval.bytes", I, "4096", at_least(0), Y},
    {"log.flush.interval.messages", L, LONG_MAX_S, at_least(1), Y},
    {"log.segment.delete.delay.ms", L, "60000", at_least(0), N},
    {"log.flush.scheduler.interval.ms", L, LONG_MAX_S, no_check(), Y},
    {"log.flush.interval.ms", L, null, no_check(), Y},
    {"log.flush.offset.checkpoint.interval.ms", I, "60000", at_least(0), Y},
    {"log.flush.start.offset.checkpoint.interval.ms", I, "60000", at_least(0), N},
    {"log.preallocate", B, "false", no_check(), N},
    {"log.message.format.version", Str, "3.0-IV1", no_check(), N},
    {"log.message.timestamp.type", Str, "CreateTime", one_of("CreateTime|LogAppendTime"), Y},
    {"log.message.timestamp.difference.max.ms", L, LONG_MAX_S, at_least(0), N},
    {"log.message.timestamp.before.max.ms", L, LONG_MAX_S, at_least(0), N},
    {"log.message.timestamp.after.max.ms", L, LONG_MAX_S, at_least(0), N},
    {"log.message.downconversion.enable", B, "true", no_check(), N},
    {"log.local.retention.ms", L, "-2", at_least(-2), N},
    {"log.local.retention.bytes", L, "-2", at_least(-2), N},
    {"log.initial.task.delay.ms", L, "30000", at_least(0), N},
    {"log.dir.failure.timeout.ms", L, "30000", at_least(1), N},
    {"num.recovery.threads.per.data.dir", I, "1", at_least(1), Y},
    {"auto.create.topics.enable", B, "true", no_check(), Y},
    {"min.insync.replicas", I, "1", at_least(1), Y},
    {"create.topic.policy.class.name", C, null, no_check(), R, kPolicy},
    {"alter.config.policy.class.name", C, null, no_check(), R, kPolicy},
    {"delete.topic.enable", B, "true", no_check(), Y},
    {"compression.type", Str, "producer", one_of("uncompressed|zstd|lz4|snappy|gzip|producer"), N},
    {"compression.gzip.level", I, "-1", between(-1, 9), N},
    {"compression.lz4.level", I, "9", between(1, 17), N},
    {"compression.zstd.level", I, "3", between(-131072, 22), N},

    // ---- Replication
    {"controller.socket.timeout.ms", I, "30000", no_check(), Y},
    {"default.replication.factor", I, "1", between(1, 32767), Y},
    {"replica.lag.time.max.ms", L, "30000", no_check(), Y},
    {"replica.socket.timeout.ms", I, "30000", no_check(), Y},
    {"replica.socket.receive.buffer.bytes", I, "65536", no_check(), N},
    {"replica.fetch.max.bytes", I, "1048576", at_least(0), Y},
    {"replica.fetch.wait.max.ms", I, "500", no_check(), Y},
    {"replica.fetch.backoff.ms", I, "1000", at_least(0), Y},
    {"replica.fetch.min.bytes", I, "1", no_check(), Y},
    {"replica.fetch.response.max.bytes", I, "10485760", at_least(0), N},
    // Replication throttles (Kafka's DynamicConfig.Broker quotas, usually set
    // dynamically): the rates of the KIP-73 replication quotas.
    {"leader.replication.throttled.rate", L, LONG_MAX_S, at_least(0), Y},
    {"follower.replication.throttled.rate", L, LONG_MAX_S, at_least(0), Y},
    {"replica.alter.log.dirs.io.max.bytes.per.second", L, LONG_MAX_S, at_least(0), R, kQuota},
    {"num.replica.fetchers", I, "1", no_check(), Y},
    {"replica.high.watermark.checkpoint.interval.ms", L, "5000", no_check(), N},
    {"fetch.purgatory.purge.interval.requests", I, "1000", no_check(), N},
    {"producer.purgatory.purge.interval.requests", I, "1000", no_check(), N},
    {"delete.records.purgatory.purge.interval.requests", I, "1", no_check(), N},
    {"auto.leader.rebalance.enable", B, "true", no_check(), Y},
    {"leader.imbalance.per.broker.percentage", I, "10", between(0, 100), Y},
    {"leader.imbalance.check.interval.seconds", L, "300", at_least(1), Y},
    {"unclean.leader.election.enable", B, "false", no_check(), Y},
    {"security.inter.broker.protocol", Str, "PLAINTEXT", one_of("PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL"), R, kListener},
    {"inter.broker.protocol.version", Str, "3.0-IV1", kafka_version(), Y},
    {"inter.broker.listener.name", Str, null, no_check(), Y},
    {"replica.selector.class", Str, null, no_check(), N},
    {"controlled.shutdown.max.retries", I, "3", no_check(), Y},
    {"controlled.shutdown.retry.backoff.ms", L, "5000", no_check(), Y},
    {"controlled.shutdown.enable", B, "true", no_check(), Y},

    // ---- Group coordinator
    {"group.min.session.timeout.ms", I, "6000", no_check(), Y},
    {"group.max.session.timeout.ms", I, "1800000", no_check(), Y},
    {"group.initial.rebalance.delay.ms", I, "3000", no_check(), Y},
    {"group.max.size", I, INT_MAX_S, at_least(1), Y},
    {"group.coordinator.rebalance.protocols", Lst, "classic", list_of("classic|consumer"), N},
    {"group.coordinator.threads", I, "1", at_least(1), N},
    {"group.consumer.session.timeout.ms", I, "45000", at_least(1), N},
    {"group.consumer.min.session.timeout.ms", I, "45000", at_least(1), N},
    {"group.consumer.max.session.timeout.ms", I, "60000", at_least(1), N},
    {"group.consumer.heartbeat.interval.ms", I, "5000", at_least(1), N},
    {"group.consumer.min.heartbeat.interval.ms", I, "5000", at_least(1), N},
    {"group.consumer.max.heartbeat.interval.ms", I, "15000", at_least(1), N},
    {"group.consumer.max.size", I, INT_MAX_S, at_least(1), N},
    {"group.consumer.assignors", Lst, "org.apache.kafka.coordinator.group.assignor.UniformAssignor,org.apache.kafka.coordinator.group.assignor.RangeAssignor", no_check(), N},
    {"group.consumer.migration.policy", Str, "disabled", one_of_nocase("disabled|upgrade|downgrade|bidirectional"), N},

    // ---- Offset management
    {"offset.metadata.max.bytes", I, "4096", no_check(), Y},
    {"offsets.load.buffer.size", I, "5242880", at_least(1), N},
    {"offsets.topic.replication.factor", S, "3", at_least(1), Y},
    {"offsets.topic.num.partitions", I, "50", at_least(1), Y},
    {"offsets.topic.segment.bytes", I, "104857600", at_least(1), Y},
    {"offsets.topic.compression.codec", I, "0", no_check(), N},
    {"offsets.retention.minutes", I, "10080", at_least(1), Y},
    {"offsets.retention.check.interval.ms", L, "600000", at_least(1), Y},
    {"offsets.commit.timeout.ms", I, "5000", at_least(1), N},
    {"offsets.commit.required.acks", S, "-1", no_check(), N},

    // ---- Transactions and producer ids
    {"transactional.id.expiration.ms", I, "604800000", at_least(1), Y},
    {"transaction.max.timeout.ms", I, "900000", at_least(1), Y},
    {"transaction.state.log.min.isr", I, "2", at_least(1), Y},
    {"transaction.state.log.load.buffer.size", I, "5242880", at_least(1), N},
    {"transaction.state.log.replication.factor", S, "3", at_least(1), Y},
    {"transaction.state.log.num.partitions", I, "50", at_least(1), Y},
    {"transaction.state.log.segment.bytes", I, "104857600", at_least(1), Y},
    {"transaction.abort.timed.out.transaction.cleanup.interval.ms", I, "10000", at_least(1), Y},
    {"transaction.remove.expired.transaction.cleanup.interval.ms", I, "3600000", at_least(1), Y},
    {"transaction.partition.verification.enable", B, "true", no_check(), N},
    {"producer.id.expiration.ms", I, "86400000", at_least(1), Y},
    {"producer.id.expiration.check.interval.ms", I, "600000", at_least(1), N},

    // ---- Fetch
    {"max.incremental.fetch.session.cache.slots", I, "1000", at_least(0), Y},
    {"fetch.max.bytes", I, "57671680", at_least(1024), N},
    {"max.request.partition.size.limit", I, "2000", at_least(1), N},

    // ---- Metrics
    {"metrics.num.samples", I, "2", at_least(1), N},
    {"metrics.sample.window.ms", L, "30000", at_least(1), N},
    {"metric.reporters", Lst, "", no_check(), N},
    {"metrics.recording.level", Str, "INFO", one_of("INFO|DEBUG|TRACE"), N},
    {"auto.include.jmx.reporter", B, "true", no_check(), N},
    {"kafka.metrics.reporters", Lst, "", no_check(), N},
    {"kafka.metrics.polling.interval.secs", I, "10", at_least(1), N},
    {"telemetry.max.bytes", I, "1048576", at_least(1), N},

    // ---- Quotas
    {"quota.window.num", I, "11", at_least(1), Y},
    {"replication.quota.window.num", I, "11", at_least(2), Y},
    {"alter.log.dirs.replication.quota.window.num", I, "11", at_least(1), R, kQuota},
    {"controller.quota.window.num", I, "11", at_least(1), R, kQuota},
    {"quota.window.size.seconds", I, "1", at_least(1), Y},
    {"replication.quota.window.size.seconds", I, "1", at_least(1), Y},
    {"alter.log.dirs.replication.quota.window.size.seconds", I, "1", at_least(1), R, kQuota},
    {"controller.quota.window.size.seconds", I, "1", at_least(1), R, kQuota},
    {"client.quota.callback.class", C, null, no_check(), R, kQuotaCallback},

    // ---- Security: common and SSL
    {"connections.max.reauth.ms", L, "0", at_least(0), Y},
    {"security.providers", Str, null, no_check(), R, kTls},
    {"principal.builder.class", C, "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder", no_check(), R, kPrincipal},
    {"ssl.protocol", Str, "TLSv1.3", no_check(), Y},
    {"ssl.provider", Str, null, no_check(), R, kTls},
    {"ssl.enabled.protocols", Lst, "TLSv1.2,TLSv1.3", no_check(), Y},
    {"ssl.keystore.type", Str, "JKS", no_check(), Y},
    {"ssl.keystore.location", Str, null, no_check(), Y},
    {"ssl.keystore.password", P, null, no_check(), Y},
    {"ssl.key.password", P, null, no_check(), Y},
    {"ssl.keystore.key", P, null, no_check(), Y},
    {"ssl.keystore.certificate.chain", P, null, no_check(), Y},
    {"ssl.truststore.type", Str, "JKS", no_check(), Y},
    {"ssl.truststore.location", Str, null, no_check(), Y},
    {"ssl.truststore.password", P, null, no_check(), Y},
    {"ssl.truststore.certificates", P, null, no_check(), Y},
    {"ssl.keymanager.algorithm", Str, "SunX509", no_check(), R, kTls},
    {"ssl.trustmanager.algorithm", Str, "PKIX", no_check(), R, kTls},
    {"ssl.endpoint.identification.algorithm", Str, "https", no_check(), Y},
    {"ssl.secure.random.implementation", Str, null, no_check(), R, kTls},
    {"ssl.client.auth", Str, "none", one_of("required|requested|none"), Y},
    {"ssl.cipher.suites", Lst, "", no_check(), Y},
    {"ssl.principal.mapping.rules", Str, "DEFAULT", no_check(), Y},
    {"ssl.engine.factory.class", C, null, no_check(), R, kTls},
    {"ssl.allow.dn.changes", B, "false", no_check(), R, kTls},
    {"ssl.allow.san.changes", B, "false", no_check(), R, kTls},

    // ---- SASL
    {"sasl.mechanism.inter.broker.protocol", Str, "GSSAPI", no_check(), Y},
    {"sasl.jaas.config", P, null, no_check(), R, kSasl},
    {"sasl.enabled.mechanisms", Lst, "GSSAPI", no_check(), Y},
    {"sasl.server.callback.handler.class", C, null, no_check(), R, kSasl},
    {"sasl.client.callback.handler.class", C, null, no_check(), R, kSasl},
    {"sasl.login.class", C, null, no_check(), R, kSasl},
    {"sasl.login.callback.handler.class", C, null, no_check(), R, kSasl},
    {"sasl.kerberos.service.name", Str, null, no_check(), R, kSasl},
    {"sasl.kerberos.kinit.cmd", Str, "/usr/bin/kinit", no_check(), R, kSasl},
    {"sasl.kerberos.ticket.renew.window.factor", D, "0.8", no_check(), R, kSasl},
    {"sasl.kerberos.ticket.renew.jitter", D, "0.05", no_check(), R, kSasl},
    {"sasl.kerberos.min.time.before.relogin", L, "60000", no_check(), R, kSasl},
    {"sasl.kerberos.principal.to.local.rules", Lst, "DEFAULT", no_check(), R, kSasl},
    {"sasl.login.refresh.window.factor", D, "0.8", no_check(), R, kSasl},
    {"sasl.login.refresh.window.jitter", D, "0.05", no_check(), R, kSasl},
    {"sasl.login.refresh.min.period.seconds", S, "60", no_check(), R, kSasl},
    {"sasl.login.refresh.buffer.seconds", S, "300", no_check(), R, kSasl},
    {"sasl.login.connect.timeout.ms", I, null, no_check(), R, kSasl},
    {"sasl.login.read.timeout.ms", I, null, no_check(), R, kSasl},
    {"sasl.login.retry.backoff.max.ms", L, "10000", no_check(), R, kSasl},
    {"sasl.login.retry.backoff.ms", L, "100", no_check(), R, kSasl},
    {"sasl.server.max.receive.size", I, "524288", at_least(1), Y},
    {"sasl.oauthbearer.scope.claim.name", Str, "scope", no_check(), R, kSasl},
    {"sasl.oauthbearer.sub.claim.name", Str, "sub", no_check(), R, kSasl},
    {"sasl.oauthbearer.token.endpoint.url", Str, null, no_check(), R, kSasl},
    {"sasl.oauthbearer.jwks.endpoint.url", Str, null, no_check(), R, kSasl},
    {"sasl.oauthbearer.jwks.endpoint.refresh.ms", L, "3600000", no_check(), R, kSasl},
    {"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", L, "10000", no_check(), R, kSasl},
    {"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", L, "100", no_check(), R, kSasl},
    {"sasl.oauthbearer.clock.skew.seconds", I, "30", no_check(), R, kSasl},
    {"sasl.oauthbearer.expected.audience", Lst, null, no_check(), R, kSasl},
    {"sasl.oauthbearer.expected.issuer", Str, null, no_check(), R, kSasl},

    // ---- Delegation tokens and dynamic password encoding
    {"delegation.token.master.key", P, null, no_check(), R, kDelegation},
    {"delegation.token.secret.key", P, null, no_check(), R, kDelegation},
    {"delegation.token.max.lifetime.ms", L, "604800000", at_least(1), R, kDelegation},
    {"delegation.token.expiry.time.ms", L, "86400000", at_least(1), R, kDelegation},
    {"delegation.token.expiry.check.interval.ms", L, "3600000", at_least(1), R, kDelegation},
    {"password.encoder.secret", P, null, no_check(), R, kPasswords},
    {"password.encoder.old.secret", P, null, no_check(), R, kPasswords},
    {"password.encoder.keyfactory.algorithm", Str, null, no_check(), R, kPasswords},
    {"password.encoder.cipher.algorithm", Str, "AES/CBC/PKCS5Padding", no_check(), R, kPasswords},
    {"password.encoder.key.length", I, "128", at_least(8), R, kPasswords},
    {"password.encoder.iterations", I, "4096", at_least(1024), R, kPasswords},

    // ---- Tiered (remote) storage
    {"remote.log.storage.system.enable", B, "false", no_check(), R, kTiered},
    {"remote.log.storage.manager.class.name", Str, null, no_check(), R, kTiered},
    {"remote.log.storage.manager.class.path", Str, null, no_check(), R, kTiered},
    {"remote.log.storage.manager.impl.prefix", Str, "rsm.config.", no_check(), R, kTiered},
    {"remote.log.metadata.manager.class.name", Str, "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager", no_check(), R, kTiered},
    {"remote.log.metadata.manager.class.path", Str, null, no_check(), R, kTiered},
    {"remote.log.metadata.manager.impl.prefix", Str, "rlmm.config.", no_check(), R, kTiered},
    {"remote.log.metadata.manager.listener.name", Str, null, no_check(), R, kTiered},
    {"remote.log.metadata.custom.metadata.max.bytes", I, "128", at_least(0), R, kTiered},
    {"remote.log.index.file.cache.total.size.bytes", L, "1073741824", at_least(1), R, kTiered},
    {"remote.log.manager.thread.pool.size", I, "10", at_least(1), R, kTiered},
    {"remote.log.manager.task.interval.ms", L, "30000", at_least(1), R, kTiered},
    {"remote.log.manager.task.retry.backoff.ms", L, "500", at_least(1), R, kTiered},
    {"remote.log.manager.task.retry.backoff.max.ms", L, "30000", at_least(1), R, kTiered},
    {"remote.log.manager.task.retry.jitter", D, "0.2", dbetween(0, 0.5), R, kTiered},
    {"remote.log.manager.copy.max.bytes.per.second", L, LONG_MAX_S, at_least(1), R, kTiered},
    {"remote.log.manager.copy.quota.window.num", I, "11", at_least(1), R, kTiered},
    {"remote.log.manager.copy.quota.window.size.seconds", I, "1", at_least(1), R, kTiered},
    {"remote.log.manager.fetch.max.bytes.per.second", L, LONG_MAX_S, at_least(1), R, kTiered},
    {"remote.log.manager.fetch.quota.window.num", I, "11", at_least(1), R, kTiered},
    {"remote.log.manager.fetch.quota.window.size.seconds", I, "1", at_least(1), R, kTiered},
    {"remote.log.reader.threads", I, "10", at_least(1), R, kTiered},
    {"remote.log.reader.max.pending.tasks", I, "100", at_least(1), R, kTiered},
    {"remote.fetch.max.wait.ms", I, "500", at_least(1), R, kTiered},
};

#undef INT_MAX_S
#undef LONG_MAX_S

}  // namespace

std::span<const KeyDef> broker_key_defs() { return kBrokerKeys; }

}  // namespace spool::config
