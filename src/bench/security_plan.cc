// Session planning of the security family (runner_session.h), opt-in with
// --workloads security or security/<tls-consume|sasl-ssl-produce|authorizer>.
// Brokers and clients are configured as security_config.h says, with the
// certificates of bench_certs.h (made once per run in the work dir). Per
// repetition and target (spool, then kafka with --peer kafka), each phase on
// a fresh broker that is started, measured and stopped before the next:
//   tls            PLAINTEXT + SSL + SASLSSL listeners (tls-consume,
//                  sasl-ssl-produce): 1 KB messages written once over
//                  PLAINTEXT, then read back from the page cache over
//                  PLAINTEXT and over SSL; produce 1 KB acks=1 over
//                  PLAINTEXT and over SASL_SSL (PLAIN)
//   no-authorizer  PLAINTEXT + SASL (SASL_PLAINTEXT, PLAIN): produce 1 KB
//                  acks=1 as User:producer over SASL (authorizer)
//   authorizer     the same with the ACL authorizer and 10,000 ACLs
//                  (bench_acls.h) created and listed before producing
// Every timed run follows an untimed warm-up of the same kind on the same
// broker (JIT, connections, page cache); the two runs of a pair, and the
// no-authorizer / authorizer phases, run in an order that alternates with
// the repetition. Ratios are per repetition (secured / plaintext;
// authorizer / no authorizer); the report quotes their medians.
// Workload ids (measurement.h):
//   security/tls-consume/1KB/<plaintext|ssl>                     msgs_per_s, MB_per_s
//   security/tls-consume/1KB/ssl-over-plaintext                  ratio (MB/s)
//   security/sasl-ssl-produce/1KB/acks=1/<plaintext|sasl_ssl>    msgs_per_s, MB_per_s
//   security/sasl-ssl-produce/1KB/acks=1/sasl_ssl-over-plaintext ratio (msg/s)
//   security/authorizer/1KB/acks=1/sasl_plaintext/<no-authorizer|acls=N>   msgs_per_s, MB_per_s
//   security/authorizer/1KB/acks=1/sasl_plaintext/acls=N-over-no-authorizer  ratio (msg/s)
//   security/authorizer/create-acls=N    seconds from the first CreateAcls until DescribeAcls lists all N
#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "bench/bench_acls.h"
#include "bench/bench_certs.h"
#include "bench/kafka_peer.h"
#include "bench/number_format.h"
#include "bench/runner_session.h"
#include "bench/security_config.h"

namespace spool::bench {
namespace {

constexpr int kAclBatch = 500;
constexpr double kWarmupSeconds = 3;  // cap on a warm-up produce
const std::string kTlsId = "security/tls-consume/1KB/";
const std::string kSaslId = "security/sasl-ssl-produce/1KB/acks=1/";
const std::string kAuthzId = "security/authorizer/1KB/acks=1/sasl_plaintext/";

// State the family's steps share (held by their closures).
struct SecurityRun {
  std::optional<BenchCerts> certs;
  std::string spool_tls_path;  // spool_tls_path() of the first Spool phase that logged one
};

// The broker of one phase and what its steps pass on.
struct Phase {
  std::string target;  // "spool" | "kafka"
  std::unique_ptr<ManagedBroker> broker;
  std::vector<ExtraListener> listeners;
  std::string dir;
  std::string consume_topic;            // tls: the log written once, read many times
  std::vector<std::string> acl_topics;  // authorizer: warm-up and timed topics, granted to the producer
};

// A repetition's produce rates without and with the authorizer (msg/s).
struct AuthzPair {
  double open = 0;
  double acl = 0;
};

// One run of a pair: warm == true is the untimed warm-up.
using RunFn = std::function<Result<Throughput>(bool warm)>;

std::string fmt_rate(const Throughput& t) {
  return human_number(t.msgs_per_s()) + " msg/s, " + human_number(t.MB_per_s()) + " MB/s";
}

// A Target on `listener` of the phase's broker (empty: PLAINTEXT); topics
// are created and deleted over PLAINTEXT (User:ANONYMOUS, a super user).
Result<Target> target_on(const Phase& p, const SecurityRun& run, const std::string& listener) {
  if (!p.broker) return Status::error(p.target + " is not running");
  if (!run.certs) return Status::error("no certificates");
  const std::string admin = p.broker->bootstrap();
  const ExtraListener* l = listener.empty() ? nullptr : find_listener(p.listeners, listener);
  if (!listener.empty() && l == nullptr) return Status::error("no " + listener + " listener");
  Target t{p.target, l ? l->bootstrap() : admin, "",
           [admin](const NewTopic& nt) { return create_topics(admin, {nt}, 60000); },
           [admin](const std::string& name) { (void)delete_topics(admin, {name}, 30000); }};
  t.client = client_security(l ? l->protocol : "PLAINTEXT", *run.certs);
  return t;
}

std::vector<std::string> security_notes(bool tls, bool sasl, bool authz, int acls, int64_t consume_n,
                                        int64_t produce_n, double duration_s) {
  std::vector<std::string> v;
  v.push_back("security: certificates made in-process (OpenSSL 3): an EC P-256 CA and a server certificate for "
              "DNS:localhost, IP:127.0.0.1 (ssl.keystore.type=PEM, key + chain; ssl.truststore.type=PEM, the CA); "
              "the TLS version and cipher the client and broker negotiate by default; clients are librdkafka " +
              std::string(rd_kafka_version_str()) + " with ssl.ca.location and its default https name check; "
              "every phase is a fresh broker, Spool with its default configuration (durable.writes=true) and "
              "Kafka with its own; every timed run follows an untimed warm-up of the same kind on the same broker "
              "(a third of the messages read, or up to " + human_number(kWarmupSeconds) + " s of produce), and "
              "the order within each pair alternates with the repetition; the clients run on the same cores as "
              "the broker, so a TLS ratio also carries librdkafka's own encryption and decryption");
  if (tls)
    v.push_back("security/tls-consume: " + std::to_string(consume_n) + " x 1 KB written once over PLAINTEXT "
                "(acks=1), then read from the page cache by fresh consumers over PLAINTEXT and over SSL (server "
                "certificate only) as the consume workload does (first message to last); ssl-over-plaintext is "
                "each repetition's MB/s ratio");
  if (sasl)
    v.push_back("security/sasl-ssl-produce: the produce workload (1 KB, acks=1, 1 partition, 1 producer, up to " +
                std::to_string(produce_n) + " messages or " + human_number(duration_s) +
                " s) over PLAINTEXT and over SASL_SSL with PLAIN on the same broker; PLAIN, not SCRAM-SHA-512: "
                "librdkafka 2.0.2 cannot create SCRAM users (no AlterUserScramCredentials) and Kafka 4.4 refuses "
                "its SCRAM login; the mechanism only runs at connection time");
  if (authz) {
    v.push_back("security/authorizer: the same produce as User:producer over SASL_PLAINTEXT (PLAIN) on a broker "
                "without an authorizer and on a fresh one with authorizer.class.name=org.apache.kafka.metadata."
                "authorizer.StandardAuthorizer (Spool: an alias of its ACL authorizer), super.users=User:ANONYMOUS "
                "(the PLAINTEXT admin) and " + std::to_string(acls) + " ACLs; the ratio is each repetition's "
                "authorizer / no-authorizer msg/s (goal for Spool: at most 5% slower); create-acls is the seconds "
                "from the first CreateAcls until DescribeAcls lists them all");
    v.push_back("security/authorizer ACLs, created in CreateAcls batches of " + std::to_string(kAclBatch) +
                ": a third LITERAL WRITE on other topics for 1,000 other users, a third PREFIXED READ on prefixes "
                "bench-acl-<i>- for them, a third LITERAL WRITE on other topics for User:producer, and the two "
                "LITERAL WRITE grants on the warm-up and timed topics that let it produce; before producing, a "
                "produce to a topic without a grant is checked to fail with TOPIC_AUTHORIZATION_FAILED");
  }
  return v;
}

}  // namespace

void Session::plan_security(std::vector<Step>* steps) {
  if (!o_.bootstrap.empty()) {
    add_note("security: skipped with --bootstrap (the workloads start brokers with their own listeners)");
    return;
  }
  if (work_dir_.empty() || exe_.empty()) {
    add_note("security: skipped (no work dir or no spool executable)");
    return;
  }
  const bool tls_consume = wants_security("tls-consume");
  const bool sasl_produce = wants_security("sasl-ssl-produce");
  const bool authz = wants_security("authorizer");
  const int acls = o_.quick ? 1000 : 10000;
  const int64_t produce_n = z_.messages;  // 1 KB each: bounded by the duration rather than the count
  const int64_t consume_n = z_.consume_messages;
  std::vector<std::string> targets = {"spool"};
  if (peer_ == "kafka") targets.push_back("kafka");
  std::vector<std::string> spool_base;
  for (const auto& d : deps_)
    if (d->name == "spool") spool_base = d->overrides;
  auto run = std::make_shared<SecurityRun>();
  for (const auto& n : security_notes(tls_consume, sasl_produce, authz, acls, consume_n, produce_n, z_.duration_s))
    add_note(n);
  if (peer_ != "kafka") add_note("security: no Kafka runs without --peer kafka: Spool's own ratios only");

  steps->push_back({"security: certificates", [this, run]() -> Result<std::string> {
                      auto c = generate_bench_certs(work_dir_ + "/security-certs");
                      if (!c) return c.status();
                      run->certs = *c;
                      return "CA and server certificate in " + work_dir_ + "/security-certs";
                    }});

  // The start and stop steps of one phase of `p`.
  auto start_step = [this, run, spool_base](std::shared_ptr<Phase> p, const std::string& phase, int rep,
                                            SecurityListeners want, bool authorizer) -> Step {
    return {"start security " + p->target + " " + phase + " (run " + std::to_string(rep) + ")",
            [this, run, spool_base, p, phase, rep, want, authorizer]() -> Result<std::string> {
              p->broker.reset();
              if (!run->certs) return Status::error("no certificates");
              auto listeners = pick_listeners(want);
              if (!listeners) return listeners.status();
              p->listeners = *listeners;
              p->dir = work_dir_ + "/security-" + p->target + "-" + phase + "-" + std::to_string(rep);
              std::error_code ec;
              std::filesystem::create_directories(p->dir + "/data", ec);
              std::vector<std::string> ov = p->target == "spool" ? spool_base : std::vector<std::string>{};
              auto sec = security_overrides(*run->certs, p->listeners, authorizer);
              ov.insert(ov.end(), sec.begin(), sec.end());
              std::unique_ptr<ManagedBroker> b;
              if (p->target == "kafka")
                b = std::make_unique<KafkaPeer>(kafka_script_, p->dir, ov, p->dir + "/script.log", p->listeners);
              else
                b = std::make_unique<BrokerProcess>(exe_, p->dir + "/data", ov, p->dir + "/broker.log", p->listeners);
              if (auto st = b->start(p->target == "kafka" ? 120 : 30); !st) return st;
              p->broker = std::move(b);
              std::string out = "serving on " + p->broker->bootstrap();
              for (const auto& l : p->listeners) out += ", " + l.name + " " + l.bootstrap();
              return out;
            }};
  };
  auto stop_step = [run](std::shared_ptr<Phase> p, const std::string& phase, int rep) -> Step {
    return {"stop security " + p->target + " " + phase + " (run " + std::to_string(rep) + ")",
            [run, p]() -> Result<std::string> {
              if (!p->broker) return std::string("was not running");
              Status st = p->broker->stop(60);
              p->broker.reset();
              if (p->target == "spool" && run->spool_tls_path.empty())
                run->spool_tls_path = spool_tls_path(p->dir + "/broker.log");
              std::error_code ec;
              std::filesystem::remove_all(p->dir, ec);
              if (!st) return st;
              return std::string("stopped");
            }};
  };
  // Produce 1 KB acks=1 on `listener` of p to `topic` (empty: a fresh
  // name), deleted after; a warm-up sends for at most kWarmupSeconds.
  auto produce = [this, run, produce_n](const Phase& p, const std::string& listener, std::string topic,
                                        bool warm) -> Result<Throughput> {
    auto t = target_on(p, *run, listener);
    if (!t) return t.status();
    if (topic.empty()) topic = next_topic("security");
    double seconds = warm ? std::min(z_.duration_s, kWarmupSeconds) : z_.duration_s;
    auto res = run_produce(*t, topic, ProduceSpec{1024, false, 1, 1}, produce_n, seconds,
                           warm ? nullptr : progress_.get());
    t->drop_topic(topic);
    return res;
  };
  // A step that warms up, then times, the plaintext and the secured run
  // (names[0], names[1]) in the repetition's order, and records both and
  // the secured/plaintext ratio (of MB/s or msg/s) as <id><names[1]>-over-<names[0]>.
  auto pair_step = [this](const std::string& id, const std::string& target, int rep,
                          std::array<std::string, 2> names, std::array<RunFn, 2> runs, bool ratio_of_MB) -> Step {
    return {run_label(id + "<" + names[0] + "|" + names[1] + ">", target, rep),
            [this, id, target, rep, names, runs, ratio_of_MB]() -> Result<std::string> {
              Throughput got[2];
              for (int k = 0; k < 2; ++k) {
                int which = rep % 2 == 0 ? 1 - k : k;
                for (bool warm : {true, false}) {
                  auto res = runs[which](warm);
                  if (!res)
                    return Status::error(names[which] + (warm ? " warm-up: " : ": ") + res.status().message());
                  if (!warm) got[which] = *res;
                }
              }
              for (int k = 0; k < 2; ++k) {
                record(id + names[k], target, "msgs_per_s", got[k].msgs_per_s());
                record(id + names[k], target, "MB_per_s", got[k].MB_per_s());
              }
              double q = ratio_of_MB ? got[1].MB_per_s() / got[0].MB_per_s()
                                     : got[1].msgs_per_s() / got[0].msgs_per_s();
              record(id + names[1] + "-over-" + names[0], target, "ratio", q);
              return names[0] + " " + fmt_rate(got[0]) + "; " + names[1] + " " + fmt_rate(got[1]) + " (" +
                     format_ratio(q) + ")";
            }};
  };

  const std::string acl_id = kAuthzId + "acls=" + std::to_string(acls);
  const std::string create_id = "security/authorizer/create-acls=" + std::to_string(acls);
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    for (const std::string& target : targets) {
      if (tls_consume || sasl_produce) {
        auto p = std::make_shared<Phase>();
        p->target = target;
        steps->push_back(start_step(p, "tls", rep, {tls_consume, sasl_produce, false}, false));
        if (tls_consume) {
          steps->push_back({"security/tls-consume " + target + " prefill " +
                                human_number(static_cast<double>(consume_n)) + " x 1 KB",
                            [this, run, p, consume_n]() -> Result<std::string> {
                              auto t = target_on(*p, *run, "");
                              if (!t) return t.status();
                              p->consume_topic = next_topic("security-consume");
                              auto res = run_produce(*t, p->consume_topic, ProduceSpec{1024, false, 1, 1}, consume_n,
                                                     1e9, nullptr);
                              if (!res) return Status::error("prefill: " + res.status().message());
                              if (res->messages < consume_n)
                                return Status::error("prefill delivered only " + std::to_string(res->messages));
                              return std::string("written");
                            }});
          auto consume = [this, run, p, consume_n](const std::string& listener) -> RunFn {
            return [this, run, p, consume_n, listener](bool warm) -> Result<Throughput> {
              if (p->consume_topic.empty()) return Status::error("prefill failed");
              auto t = target_on(*p, *run, listener);
              if (!t) return t.status();
              int64_t n = warm ? std::max<int64_t>(consume_n / 3, 1) : consume_n;
              return run_consume(*t, p->consume_topic, n, 300, warm ? nullptr : progress_.get());
            };
          };
          steps->push_back(
              pair_step(kTlsId, target, rep, {"plaintext", "ssl"}, {consume(""), consume(kSslListener)}, true));
        }
        if (sasl_produce) {
          auto on = [p, produce](const std::string& listener) -> RunFn {
            return [p, produce, listener](bool warm) { return produce(*p, listener, "", warm); };
          };
          steps->push_back(
              pair_step(kSaslId, target, rep, {"plaintext", "sasl_ssl"}, {on(""), on(kSaslSslListener)}, false));
        }
        steps->push_back(stop_step(p, "tls", rep));
      }
      if (!authz) continue;
      auto pair = std::make_shared<AuthzPair>();
      auto open = std::make_shared<Phase>(), acl = std::make_shared<Phase>();
      open->target = acl->target = target;
      // Warm-up then timed produce over SASL; the topics are the granted ones on `acl`.
      auto timed = [this, produce, pair, target](std::shared_ptr<Phase> ph, const std::string& id, bool with_acls) {
        return [this, produce, pair, target, ph, id, with_acls]() -> Result<std::string> {
          if (with_acls && ph->acl_topics.size() != 2) return Status::error("the ACLs were not created");
          auto warm = produce(*ph, kSaslListener, with_acls ? ph->acl_topics[0] : "", true);
          if (!warm) return Status::error("warm-up: " + warm.status().message());
          auto res = produce(*ph, kSaslListener, with_acls ? ph->acl_topics[1] : "", false);
          if (!res) return res.status();
          record(id, target, "msgs_per_s", res->msgs_per_s());
          record(id, target, "MB_per_s", res->MB_per_s());
          (with_acls ? pair->acl : pair->open) = res->msgs_per_s();
          return fmt_rate(*res);
        };
      };
      auto plan_open = [&] {
        steps->push_back(start_step(open, "no-authorizer", rep, {false, false, true}, false));
        steps->push_back({run_label(kAuthzId + "no-authorizer", target, rep),
                          timed(open, kAuthzId + "no-authorizer", false)});
        steps->push_back(stop_step(open, "no-authorizer", rep));
      };
      auto plan_acl = [&] {
        steps->push_back(start_step(acl, "authorizer", rep, {false, false, true}, true));
        steps->push_back({run_label(create_id, target, rep),
                          [this, run, acl, acls, create_id, target]() -> Result<std::string> {
                            if (!acl->broker) return Status::error(target + " is not running");
                            std::vector<std::string> topics = {next_topic("security-authz"),
                                                               next_topic("security-authz")};
                            const std::string admin = acl->broker->bootstrap();
                            auto t0 = std::chrono::steady_clock::now();
                            if (auto st = create_bench_acls(admin, std::string("User:") + kProducerUser, topics, acls,
                                                            kAclBatch, progress_.get());
                                !st)
                              return st;
                            if (auto st = wait_acls_listed(admin, static_cast<size_t>(acls), 120, progress_.get());
                                !st)
                              return st;
                            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                            record(create_id, target, "seconds", s);
                            auto sasl = target_on(*acl, *run, kSaslListener);
                            if (!sasl) return sasl.status();
                            if (auto st = check_produce_refused(*sasl, next_topic("security-ungranted")); !st)
                              return st;
                            acl->acl_topics = topics;
                            return std::to_string(acls) + " ACLs created and listed in " + human_number(s) +
                                   " s; a produce to a topic without a grant is refused";
                          }});
        steps->push_back({run_label(acl_id, target, rep), timed(acl, acl_id, true)});
        steps->push_back(stop_step(acl, "authorizer", rep));
      };
      if (rep % 2 == 1) {
        plan_open();
        plan_acl();
      } else {
        plan_acl();
        plan_open();
      }
      steps->push_back({run_label(acl_id + "-over-no-authorizer", target, rep),
                        [this, pair, acl_id, target]() -> Result<std::string> {
                          if (!(pair->open > 0) || !(pair->acl > 0))
                            return Status::error("no ratio: a run of the pair failed");
                          double q = pair->acl / pair->open;
                          record(acl_id + "-over-no-authorizer", target, "ratio", q);
                          return format_ratio(q) + " of the produce rate without an authorizer";
                        }});
    }
  }
  if (tls_consume || sasl_produce)
    steps->push_back({"security: Spool's TLS path", [this, run]() -> Result<std::string> {
                        std::string path = run->spool_tls_path.empty()
                                               ? std::string("unknown (the broker log named neither kernel nor "
                                                             "user-space TLS)")
                                               : run->spool_tls_path;
                        add_note("security: Spool's TLS path in this run: " + path +
                                 "; Kafka 4.4 encrypts in the JVM (JSSE), in user space");
                        return path;
                      }});
}

}  // namespace spool::bench
