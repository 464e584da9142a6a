#include "coordinator/group/member.h"

namespace spool::coordinator {

const Bytes* Member::metadata_for(const std::string& protocol) const {
  for (const auto& [name, meta] : protocols) {
    if (name == protocol) return &meta;
  }
  return nullptr;
}

bool Member::matches(const ProtocolList& other) const { return protocols == other; }

std::string Member::vote(const std::set<std::string>& candidates) const {
  for (const auto& [name, meta] : protocols) {
    if (candidates.count(name)) return name;
  }
  return {};
}

}  // namespace spool::coordinator
