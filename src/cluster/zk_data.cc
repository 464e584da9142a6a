// Codecs of the broker, topic, partition-state, controller and cluster-id
// znodes (zk_data.h has the contract; docs/zookeeper-layout.md the format).
#include "cluster/zk_data.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <limits>

#include "cluster/zk_data_json.h"
#include "cluster/zk_paths.h"
#include "storage/file_util.h"

namespace spool::cluster {

using zkjson::Json;
using zkjson::JsonReader;
using zkjson::OrderedJson;
using zkjson::guarded;
using zkjson::kInt32Max;
using zkjson::kInt64Max;

namespace {


bool is_security_protocol(std::string_view p) {
  return p == "PLAINTEXT" || p == "SSL" || p == "SASL_PLAINTEXT" || p == "SASL_SSL";
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '%' || c == '.' || c == '_' || c == ':';
}

// Kafka's EndPoint.createEndPoint: "LISTENER://host:port", host optionally in
// brackets, empty host allowed. The listener is looked up (upper-cased) in
// the security-protocol map.
bool parse_connection_string(std::string_view s, EndPoint& out, std::string& why) {
  const size_t sep = s.rfind("://");
  if (sep == std::string_view::npos || sep == 0) {
    why = "is not LISTENER://host:port";
    return false;
  }
  out.listener = upper(s.substr(0, sep));
  std::string_view rest = s.substr(sep + 3);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) {
    why = "has no port";
    return false;
  }
  std::string_view host = rest.substr(0, colon);
  auto port = zkjson::parse_decimal(rest.substr(colon + 1), 65535);
  if (!port) {
    why = "has a port that is not a number in [0, 65535]";
    return false;
  }
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') {
      why = "has an unclosed '[' around its host";
      return false;
    }
    host = host.substr(1, host.size() - 2);
  }
  if (!std::all_of(host.begin(), host.end(), host_char)) {
    why = "has a host with characters outside [0-9a-zA-Z-%._:]";
    return false;
  }
  out.host = std::string(host);
  out.port = static_cast<int32_t>(*port);
  return true;
}

void put_id_list(OrderedJson& arr, const std::vector<int32_t>& ids) {
  arr = OrderedJson::array();
  for (int32_t id : ids) arr.push_back(id);
}

}  // namespace

std::string topic_id_to_text(const TopicId& id) { return storage::uuid_to_text(id); }

std::optional<TopicId> topic_id_from_text(std::string_view text) {
  if (text.size() == 24 && text.substr(22) == "==") text = text.substr(0, 22);
  return storage::uuid_from_text(text);
}

TopicId make_topic_id(const std::function<uint64_t()>& random) {
  TopicId id{};
  for (int attempt = 0;; ++attempt) {
    const uint64_t hi = random();
    const uint64_t lo = random();
    for (int i = 0; i < 8; ++i) {
      id[static_cast<size_t>(i)] = static_cast<uint8_t>(hi >> (56 - 8 * i));
      id[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(lo >> (56 - 8 * i));
    }
    id[6] = static_cast<uint8_t>((id[6] & 0x0f) | 0x40);  // version 4
    id[8] = static_cast<uint8_t>((id[8] & 0x3f) | 0x80);  // IETF variant
    // The version bits already rule out Kafka's reserved ZERO and METADATA ids.
    // A first byte of 111110xx is the base64 digit 62, '-'.
    if ((id[0] >> 2) != 62) return id;
    if (attempt >= 100) {
      id[0] &= 0x7f;
      return id;
    }
  }
}

std::string endpoint_connection_string(const EndPoint& ep) {
  std::string out = ep.listener + "://";
  if (ep.host.find(':') != std::string::npos) {
    out += "[" + ep.host + "]";
  } else {
    out += ep.host;
  }
  out += ":" + std::to_string(ep.port);
  return out;
}

// ---------------------------------------------------------------- brokers

std::string encode_broker(const BrokerRegistration& b) {
  const int32_t version = b.version == 4 ? 4 : 5;
  const EndPoint* plaintext = nullptr;
  for (const EndPoint& ep : b.endpoints) {
    if (ep.security_protocol == "PLAINTEXT") {
      plaintext = &ep;
      break;
    }
  }
  OrderedJson doc;
  doc["version"] = version;
  if (plaintext != nullptr && !plaintext->host.empty()) {
    doc["host"] = plaintext->host;
  } else {
    doc["host"] = nullptr;
  }
  doc["port"] = plaintext != nullptr ? plaintext->port : -1;
  OrderedJson endpoints = OrderedJson::array();
  for (const EndPoint& ep : b.endpoints) endpoints.push_back(endpoint_connection_string(ep));
  doc["endpoints"] = std::move(endpoints);
  doc["jmx_port"] = b.jmx_port;
  doc["timestamp"] = std::to_string(b.timestamp_ms);
  if (b.rack) doc["rack"] = *b.rack;
  OrderedJson protocols = OrderedJson::object();
  for (const EndPoint& ep : b.endpoints) protocols[ep.listener] = ep.security_protocol;
  doc["listener_security_protocol_map"] = std::move(protocols);
  if (version >= 5) {
    OrderedJson features = OrderedJson::object();
    for (const auto& [name, range] : b.features) {
      OrderedJson r;
      r["min_version"] = range.min_version;
      r["max_version"] = range.max_version;
      features[name] = std::move(r);
    }
    doc["features"] = std::move(features);
  }
  return zkjson::dump(doc);
}

Result<BrokerRegistration> decode_broker(int32_t id, std::string_view json) {
  const std::string path = zk_paths::broker_id(id);
  return guarded<BrokerRegistration>(path, [&]() -> Result<BrokerRegistration> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    BrokerRegistration b;
    b.id = id;
    b.version = r.version(doc, {4, 5});
    b.jmx_port = static_cast<int32_t>(r.integer(doc, "jmx_port", -1, 65535));
    b.timestamp_ms = r.decimal_string(doc, "timestamp", 0, kInt64Max);
    b.rack = r.opt_string(doc, "rack");
    // Without the map (never written by v4+, but Kafka allows it) a listener
    // must be named after its security protocol.
    std::map<std::string, std::string> protocols;
    const Json* map = r.opt_object(doc, "listener_security_protocol_map");
    if (map != nullptr) {
      for (const auto& [listener, proto] : map->items()) {
        std::string p = r.string_value(proto, "listener_security_protocol_map." + listener);
        if (r.ok() && !is_security_protocol(p)) {
          r.fail("listener_security_protocol_map." + listener, "names unknown security protocol \"" + p + "\"");
        }
        protocols[listener] = p;
      }
    }
    const Json& endpoints = r.array(doc, "endpoints");
    if (r.ok() && endpoints.empty()) r.fail("endpoints", "must not be empty");
    for (size_t i = 0; r.ok() && i < endpoints.size(); ++i) {
      const std::string field = "endpoints[" + std::to_string(i) + "]";
      const std::string text = r.string_value(endpoints[i], field);
      if (!r.ok()) break;
      EndPoint ep;
      std::string why;
      if (!parse_connection_string(text, ep, why)) {
        r.fail(field, "\"" + text.substr(0, 64) + "\" " + why);
        break;
      }
      if (map != nullptr) {
        auto it = protocols.find(ep.listener);
        if (it == protocols.end()) {
          r.fail(field, "names listener " + ep.listener + ", absent from listener_security_protocol_map");
          break;
        }
        ep.security_protocol = it->second;
      } else if (is_security_protocol(ep.listener)) {
        ep.security_protocol = ep.listener;
      } else {
        r.fail(field, "names listener " + ep.listener + " but there is no listener_security_protocol_map");
        break;
      }
      for (const EndPoint& other : b.endpoints) {
        if (other.listener == ep.listener) r.fail(field, "repeats listener " + ep.listener);
      }
      b.endpoints.push_back(std::move(ep));
    }
    if (b.version >= 5) {
      if (const Json* features = r.opt_object(doc, "features")) {
        for (const auto& [name, range] : features->items()) {
          const std::string field = "features." + name;
          if (r.ok() && !range.is_object()) r.fail(field, std::string("must be an object, got ") + range.type_name());
          SupportedFeature f;
          f.min_version = static_cast<int16_t>(r.integer(range, "min_version", 0, 32767, field));
          f.max_version = static_cast<int16_t>(r.integer(range, "max_version", 0, 32767, field));
          if (r.ok() && f.max_version < f.min_version) r.fail(field, "has max_version below min_version");
          b.features[name] = f;
        }
      }
    }
    if (!r.ok()) return r.status();
    return b;
  });
}

// ---------------------------------------------------------------- topics

std::string encode_topic_assignment(const TopicAssignment& a) {
  OrderedJson partitions = OrderedJson::object();
  OrderedJson adding = OrderedJson::object();
  OrderedJson removing = OrderedJson::object();
  for (const auto& [partition, replicas] : a.partitions) {
    const std::string key = std::to_string(partition);
    put_id_list(partitions[key], replicas.replicas);
    if (!replicas.adding.empty()) put_id_list(adding[key], replicas.adding);
    if (!replicas.removing.empty()) put_id_list(removing[key], replicas.removing);
  }
  OrderedJson doc;
  doc["version"] = 3;
  doc["partitions"] = std::move(partitions);
  doc["adding_replicas"] = std::move(adding);
  doc["removing_replicas"] = std::move(removing);
  if (a.topic_id) doc["topic_id"] = topic_id_to_text(*a.topic_id);
  return zkjson::dump(doc);
}

Result<TopicAssignment> decode_topic_assignment(std::string_view topic, std::string_view json) {
  const std::string path = zk_paths::topic(topic);
  return guarded<TopicAssignment>(path, [&]() -> Result<TopicAssignment> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    TopicAssignment a;
    r.version(doc, {1, 2, 3});
    const Json& partitions = r.object(doc, "partitions");
    if (r.ok() && partitions.empty()) r.fail("partitions", "must not be empty");
    for (const auto& [key, replicas] : partitions.items()) {
      if (!r.ok()) break;
      auto id = zk_paths::parse_partition_id(key);
      if (!id) {
        r.fail("partitions", "has key \"" + key.substr(0, 32) + "\", not a partition id");
        break;
      }
      a.partitions[*id].replicas = r.broker_ids(replicas, "partitions." + key, /*allow_empty=*/false);
    }
    // adding_replicas / removing_replicas (v2+): per-partition subsets.
    for (const char* name : {"adding_replicas", "removing_replicas"}) {
      const Json* map = r.opt_object(doc, name);
      if (map == nullptr) continue;
      for (const auto& [key, replicas] : map->items()) {
        if (!r.ok()) break;
        const std::string field = std::string(name) + "." + key;
        auto id = zk_paths::parse_partition_id(key);
        auto it = id ? a.partitions.find(*id) : a.partitions.end();
        if (it == a.partitions.end()) {
          r.fail(field, "names a partition not in 'partitions'");
          break;
        }
        std::vector<int32_t> ids = r.broker_ids(replicas, field, /*allow_empty=*/true);
        PartitionReplicas& p = it->second;
        for (int32_t b : ids) {
          if (std::find(p.replicas.begin(), p.replicas.end(), b) == p.replicas.end()) {
            r.fail(field, "lists broker " + std::to_string(b) + ", not a replica of the partition");
          }
        }
        (std::string_view(name) == "adding_replicas" ? p.adding : p.removing) = std::move(ids);
      }
    }
    for (const auto& [id, p] : a.partitions) {
      for (int32_t b : p.adding) {
        if (r.ok() && std::find(p.removing.begin(), p.removing.end(), b) != p.removing.end()) {
          r.fail("removing_replicas." + std::to_string(id), "lists broker " + std::to_string(b) +
                                                                " that is also being added");
        }
      }
    }
    if (auto text = r.opt_string(doc, "topic_id")) {
      auto id = topic_id_from_text(*text);
      if (!id) {
        r.fail("topic_id", "\"" + text->substr(0, 32) + "\" is not a base64 Uuid");
      } else if (*id == TopicId{}) {
        r.fail("topic_id", "is the zero Uuid");
      } else {
        a.topic_id = *id;
      }
    }
    if (!r.ok()) return r.status();
    return a;
  });
}

// ------------------------------------------------------------ partition state

std::string encode_partition_state(const PartitionState& s) {
  OrderedJson doc;
  doc["version"] = 1;
  doc["leader"] = s.leader;
  doc["leader_epoch"] = s.leader_epoch;
  doc["controller_epoch"] = s.controller_epoch;
  put_id_list(doc["isr"], s.isr);
  if (s.leader_recovery_state != LeaderRecoveryState::kRecovered) {
    doc["leader_recovery_state"] = static_cast<int>(s.leader_recovery_state);
  }
  return zkjson::dump(doc);
}

Result<PartitionState> decode_partition_state(const TopicPartition& tp, std::string_view json) {
  const std::string path = zk_paths::partition_state(tp);
  return guarded<PartitionState>(path, [&]() -> Result<PartitionState> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    PartitionState s;
    r.version(doc, {1});
    s.leader = static_cast<int32_t>(r.integer(doc, "leader", kNoLeader, kInt32Max));
    s.leader_epoch = static_cast<int32_t>(r.integer(doc, "leader_epoch", 0, kInt32Max));
    s.controller_epoch = static_cast<int32_t>(r.integer(doc, "controller_epoch", 0, kInt32Max));
    s.isr = r.broker_ids(r.array(doc, "isr"), "isr", /*allow_empty=*/true);
    if (auto lrs = r.opt_integer(doc, "leader_recovery_state", 0, 1)) {
      s.leader_recovery_state = static_cast<LeaderRecoveryState>(*lrs);
    }
    if (!r.ok()) return r.status();
    return s;
  });
}

// ---------------------------------------------------------------- controller

std::string encode_controller(const ControllerRegistration& c) {
  OrderedJson doc;
  doc["version"] = c.kraft_controller_epoch ? 2 : 1;
  doc["brokerid"] = c.broker_id;
  doc["timestamp"] = std::to_string(c.timestamp_ms);
  if (c.kraft_controller_epoch) doc["kraftControllerEpoch"] = *c.kraft_controller_epoch;
  return zkjson::dump(doc);
}

Result<ControllerRegistration> decode_controller(std::string_view json) {
  const std::string path(zk_paths::kController);
  return guarded<ControllerRegistration>(path, [&]() -> Result<ControllerRegistration> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    ControllerRegistration c;
    r.version(doc, {1, 2});
    c.broker_id = static_cast<int32_t>(r.integer(doc, "brokerid", 0, kInt32Max));
    c.timestamp_ms = r.decimal_string(doc, "timestamp", 0, kInt64Max);
    if (auto e = r.opt_integer(doc, "kraftControllerEpoch", -1, kInt32Max)) {
      c.kraft_controller_epoch = static_cast<int32_t>(*e);
    }
    if (!r.ok()) return r.status();
    return c;
  });
}

std::string encode_controller_epoch(int32_t epoch) { return std::to_string(epoch); }

Result<int32_t> decode_controller_epoch(std::string_view data) {
  auto v = zkjson::parse_decimal(data, kInt32Max);
  if (!v) {
    return Status::error(std::string(zk_paths::kControllerEpoch) + ": \"" + std::string(data.substr(0, 32)) +
                         "\" is not a non-negative int32");
  }
  return static_cast<int32_t>(*v);
}

// ---------------------------------------------------------------- cluster id

std::string encode_cluster_id(std::string_view id) {
  OrderedJson doc;
  doc["version"] = "1";
  doc["id"] = std::string(id);
  return zkjson::dump(doc);
}

Result<std::string> decode_cluster_id(std::string_view json) {
  const std::string path(zk_paths::kClusterId);
  return guarded<std::string>(path, [&]() -> Result<std::string> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    const std::string version = r.string(doc, "version");
    if (r.ok() && version != "1") r.fail("version", "is \"" + version.substr(0, 16) + "\", supported: \"1\"");
    std::string id = r.string(doc, "id");
    if (r.ok() && id.empty()) r.fail("id", "must not be empty");
    if (!r.ok()) return r.status();
    return id;
  });
}

}  // namespace spool::cluster
