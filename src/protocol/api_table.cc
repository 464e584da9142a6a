#include "protocol/api_table.h"

#include "protocol/known_apis.h"

namespace spool::protocol {

namespace {

const KnownApi* find_known(int16_t key) {
  for (const auto& a : kKnownApis) {
    if (a.api_key == key) return &a;
  }
  return nullptr;
}

}  // namespace

bool is_flexible(int16_t key, int16_t version) {
  const KnownApi* a = find_known(key);
  return a != nullptr && version >= a->first_flexible;
}

std::string_view api_name(int16_t key) {
  const KnownApi* a = find_known(key);
  return a != nullptr ? a->name : std::string_view();
}

}  // namespace spool::protocol
