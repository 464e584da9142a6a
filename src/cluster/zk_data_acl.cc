// The ACL documents of zk_data.h: resource nodes and change notifications.
#include "cluster/zk_data.h"
#include "cluster/zk_data_json.h"

namespace spool::cluster {

using zkjson::Json;
using zkjson::JsonReader;
using zkjson::OrderedJson;
using zkjson::guarded;

std::string encode_acl_node(const std::vector<ZkAclEntry>& acls) {
  OrderedJson doc;
  doc["version"] = 1;
  OrderedJson list = OrderedJson::array();
  for (const ZkAclEntry& e : acls) {
    OrderedJson entry;
    entry["principal"] = e.principal;
    entry["permissionType"] = e.permission_type;
    entry["operation"] = e.operation;
    entry["host"] = e.host;
    list.push_back(std::move(entry));
  }
  doc["acls"] = std::move(list);
  return zkjson::dump(doc);
}

Result<std::vector<ZkAclEntry>> decode_acl_node(std::string_view path, std::string_view json) {
  return guarded<std::vector<ZkAclEntry>>(path, [&]() -> Result<std::vector<ZkAclEntry>> {
    auto parsed = zkjson::parse_object(path, json);
    if (!parsed) return parsed.status();
    const Json& doc = parsed.value();
    JsonReader r(path);
    r.version(doc, {1});
    std::vector<ZkAclEntry> out;
    const Json& acls = r.array(doc, "acls");
    for (size_t i = 0; r.ok() && i < acls.size(); ++i) {
      const std::string at = "acls[" + std::to_string(i) + "]";
      if (!acls[i].is_object()) {
        r.fail(at, "is not an object");
        break;
      }
      ZkAclEntry e;
      e.principal = r.string(acls[i], "principal", at);
      e.permission_type = r.string(acls[i], "permissionType", at);
      e.operation = r.string(acls[i], "operation", at);
      e.host = r.string(acls[i], "host", at);
      out.push_back(std::move(e));
    }
    if (!r.ok()) return r.status();
    return out;
  });
}

std::string encode_literal_acl_change(std::string_view resource_type, std::string_view name) {
  return std::string(resource_type) + ":" + std::string(name);
}

std::string encode_extended_acl_change(std::string_view resource_type, std::string_view name,
                                       std::string_view pattern_type) {
  OrderedJson doc;
  doc["version"] = 1;
  doc["resourceType"] = std::string(resource_type);
  doc["name"] = std::string(name);
  doc["patternType"] = std::string(pattern_type);
  return zkjson::dump(doc);
}

}  // namespace spool::cluster
