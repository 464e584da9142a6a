// Codecs of the admin, notification, config, producer-id-block and feature
// znodes (zk_data.h has the contract; docs/zookeeper-layout.md the format).
#include <algorithm>
#include <exception>
#include <limits>

#include "cluster/zk_data.h"
#include "cluster/zk_data_json.h"
#include "cluster/zk_paths.h"

namespace spool::cluster {

using zkjson::Json;
using zkjson::JsonReader;
using zkjson::OrderedJson;
using zkjson::guarded;
using zkjson::kInt32Max;
using zkjson::kInt64Max;

namespace {


OrderedJson partition_entry(const TopicPartition& tp) {
  OrderedJson e;
  e["topic"] = tp.topic;
  e["partition"] = tp.partition;
  return e;
}

// {"version":1,"partitions":[{"topic","partition"}]}: a partition listed
// twice is an error (Kafka collapses repeats into a set).
Result<std::set<TopicPartition>> decode_partition_list(std::string_view path, std::string_view json) {
  return guarded<std::set<TopicPartition>>(path, [&]() -> Result<std::set<TopicPartition>> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    r.version(doc, {1});
    const Json& list = r.array(doc, "partitions");
    std::set<TopicPartition> out;
    for (size_t i = 0; r.ok() && i < list.size(); ++i) {
      const std::string field = "partitions[" + std::to_string(i) + "]";
      if (!list[i].is_object()) {
        r.fail(field, std::string("must be an object, got ") + list[i].type_name());
        break;
      }
      TopicPartition tp(r.string(list[i], "topic", field), 0);
      tp.partition = static_cast<int32_t>(r.integer(list[i], "partition", 0, kInt32Max, field));
      if (r.ok() && tp.topic.empty()) r.fail(field + ".topic", "must not be empty");
      if (r.ok() && !out.insert(tp).second) r.fail(field, "repeats " + tp.to_string());
    }
    if (!r.ok()) return r.status();
    return out;
  });
}

std::string encode_partition_list(const std::set<TopicPartition>& partitions) {
  OrderedJson list = OrderedJson::array();
  for (const TopicPartition& tp : partitions) list.push_back(partition_entry(tp));
  OrderedJson doc;
  doc["version"] = 1;
  doc["partitions"] = std::move(list);
  return zkjson::dump(doc);
}

bool known_entity_type(std::string_view type) {
  return type == zk_paths::kEntityTopics || type == zk_paths::kEntityClients || type == zk_paths::kEntityUsers ||
         type == zk_paths::kEntityBrokers || type == zk_paths::kEntityIps;
}

}  // namespace

std::vector<std::string> topics_marked_for_deletion(const std::vector<std::string>& children) {
  std::vector<std::string> out;
  for (const std::string& c : children) {
    if (!c.empty()) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ------------------------------------------------------- reassign_partitions

std::string encode_reassign_partitions(const LegacyReassignment& reassignment) {
  OrderedJson list = OrderedJson::array();
  for (const auto& [tp, replicas] : reassignment) {
    OrderedJson e = partition_entry(tp);
    OrderedJson ids = OrderedJson::array();
    for (int32_t b : replicas) ids.push_back(b);
    e["replicas"] = std::move(ids);
    list.push_back(std::move(e));
  }
  OrderedJson doc;
  doc["version"] = 1;
  doc["partitions"] = std::move(list);
  return zkjson::dump(doc);
}

Result<LegacyReassignment> decode_reassign_partitions(std::string_view json) {
  const std::string path(zk_paths::kReassignPartitions);
  return guarded<LegacyReassignment>(path, [&]() -> Result<LegacyReassignment> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    r.version(doc, {1});
    const Json& list = r.array(doc, "partitions");
    LegacyReassignment out;
    for (size_t i = 0; r.ok() && i < list.size(); ++i) {
      const std::string field = "partitions[" + std::to_string(i) + "]";
      if (!list[i].is_object()) {
        r.fail(field, std::string("must be an object, got ") + list[i].type_name());
        break;
      }
      TopicPartition tp(r.string(list[i], "topic", field), 0);
      tp.partition = static_cast<int32_t>(r.integer(list[i], "partition", 0, kInt32Max, field));
      if (r.ok() && tp.topic.empty()) r.fail(field + ".topic", "must not be empty");
      const Json& replicas = r.array(list[i], "replicas", field);
      std::vector<int32_t> ids = r.broker_ids(replicas, field + ".replicas", /*allow_empty=*/false);
      if (r.ok() && out.count(tp) != 0) r.fail(field, "repeats " + tp.to_string());
      if (r.ok()) out[tp] = std::move(ids);
    }
    if (!r.ok()) return r.status();
    return out;
  });
}

// -------------------------------------- preferred_replica_election, isr_change

std::string encode_preferred_replica_election(const std::set<TopicPartition>& partitions) {
  return encode_partition_list(partitions);
}

Result<std::set<TopicPartition>> decode_preferred_replica_election(std::string_view json) {
  return decode_partition_list(zk_paths::kPreferredReplicaElection, json);
}

std::string encode_isr_change(const std::set<TopicPartition>& partitions) {
  return encode_partition_list(partitions);
}

Result<std::set<TopicPartition>> decode_isr_change(std::string_view path, std::string_view json) {
  return decode_partition_list(path, json);
}

// ------------------------------------------------------------ log_dir_event

std::string encode_log_dir_event(int32_t broker_id) {
  OrderedJson doc;
  doc["version"] = 1;
  doc["broker"] = broker_id;
  doc["event"] = kLogDirFailureEvent;
  return zkjson::dump(doc);
}

Result<int32_t> decode_log_dir_event(std::string_view path, std::string_view json) {
  return guarded<int32_t>(path, [&]() -> Result<int32_t> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    r.version(doc, {1});
    const auto broker = static_cast<int32_t>(r.integer(doc, "broker", 0, kInt32Max));
    r.integer(doc, "event", kLogDirFailureEvent, kLogDirFailureEvent);
    if (!r.ok()) return r.status();
    return broker;
  });
}

// ---------------------------------------------------------------- configs

std::string encode_entity_config(const EntityConfig& config) {
  OrderedJson entries = OrderedJson::object();
  for (const auto& [k, v] : config) entries[k] = v;
  OrderedJson doc;
  doc["version"] = 1;
  doc["config"] = std::move(entries);
  return zkjson::dump(doc);
}

Result<EntityConfig> decode_entity_config(std::string_view path, std::string_view json) {
  return guarded<EntityConfig>(path, [&]() -> Result<EntityConfig> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    r.version(doc, {1});
    EntityConfig out;
    for (const auto& [k, v] : r.object(doc, "config").items()) {
      if (!r.ok()) break;
      out[k] = r.string_value(v, "config." + k);
    }
    if (!r.ok()) return r.status();
    return out;
  });
}

std::string encode_config_change(std::string_view entity_path) {
  OrderedJson doc;
  doc["version"] = 2;
  doc["entity_path"] = std::string(entity_path);
  return zkjson::dump(doc);
}

Result<std::string> decode_config_change(std::string_view path, std::string_view json) {
  return guarded<std::string>(path, [&]() -> Result<std::string> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    const int32_t version = r.version(doc, {1, 2});
    std::string entity_path;
    if (r.ok() && version == 1) {
      // Kafka's version 1 named only topics and clients.
      const std::string type = r.string(doc, "entity_type");
      if (r.ok() && type != zk_paths::kEntityTopics && type != zk_paths::kEntityClients) {
        r.fail("entity_type", "is \"" + type.substr(0, 32) + "\", expected topics or clients");
      }
      const std::string name = r.string(doc, "entity_name");
      if (r.ok() && name.empty()) r.fail("entity_name", "must not be empty");
      entity_path = zk_paths::config_entity_path(type, name);
    } else if (r.ok()) {
      entity_path = r.string(doc, "entity_path");
      const size_t slash = entity_path.find('/');
      if (r.ok() && (slash == std::string::npos || slash + 1 == entity_path.size() ||
                     !known_entity_type(std::string_view(entity_path).substr(0, slash)))) {
        r.fail("entity_path", "\"" + entity_path.substr(0, 64) + "\" is not <topics|clients|users|brokers|ips>/<name>");
      }
    }
    if (!r.ok()) return r.status();
    return entity_path;
  });
}

// ------------------------------------------------------ producer id block

std::string encode_producer_id_block(const ProducerIdBlock& block) {
  OrderedJson doc;
  doc["version"] = 1;
  doc["broker"] = block.broker;
  doc["block_start"] = std::to_string(block.block_start);
  doc["block_end"] = std::to_string(block.block_end);
  return zkjson::dump(doc);
}

Result<ProducerIdBlock> decode_producer_id_block(std::string_view json) {
  const std::string path(zk_paths::kLatestProducerIdBlock);
  return guarded<ProducerIdBlock>(path, [&]() -> Result<ProducerIdBlock> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    ProducerIdBlock b;
    r.version(doc, {1});
    b.broker = static_cast<int32_t>(r.integer(doc, "broker", 0, kInt32Max));
    b.block_start = r.decimal_string(doc, "block_start", 0, kInt64Max);
    b.block_end = r.decimal_string(doc, "block_end", 0, kInt64Max);
    if (r.ok() && b.block_end < b.block_start) r.fail("block_end", "is below block_start");
    if (r.ok() && b.block_end - b.block_start >= kInt32Max) r.fail("block_end", "makes a block larger than an int32");
    if (!r.ok()) return r.status();
    return b;
  });
}

// ---------------------------------------------------------------- feature

std::string encode_feature(const FeatureZNode& node) {
  const int32_t version = node.version == 1 ? 1 : 2;
  OrderedJson features = OrderedJson::object();
  for (const auto& [name, level] : node.features) {
    OrderedJson f;
    f["max_version_level"] = level;
    if (version == 1) f["min_version_level"] = level;
    features[name] = std::move(f);
  }
  OrderedJson doc;
  doc["version"] = version;
  doc["status"] = node.enabled ? 1 : 0;
  doc["features"] = std::move(features);
  return zkjson::dump(doc);
}

Result<FeatureZNode> decode_feature(std::string_view json) {
  const std::string path(zk_paths::kFeature);
  return guarded<FeatureZNode>(path, [&]() -> Result<FeatureZNode> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    FeatureZNode node;
    node.version = r.version(doc, {1, 2});
    node.enabled = r.integer(doc, "status", 0, 1) == 1;
    for (const auto& [name, levels] : r.object(doc, "features").items()) {
      if (!r.ok()) break;
      const std::string field = "features." + name;
      if (!levels.is_object()) {
        r.fail(field, std::string("must be an object, got ") + levels.type_name());
        break;
      }
      const auto max = static_cast<int16_t>(r.integer(levels, "max_version_level", 1, 32767, field));
      if (node.version == 1) {
        const int64_t min = r.integer(levels, "min_version_level", 1, 32767, field);
        if (r.ok() && max < min) r.fail(field, "has max_version_level below min_version_level");
      }
      node.features[name] = max;
    }
    if (!r.ok()) return r.status();
    return node;
  });
}

}  // namespace spool::cluster
