// Kafka's topic name rules: 1..249 characters of [a-zA-Z0-9._-], not "." or
// "..". Names that differ only by '.' vs '_' collide in metric names, so
// Kafka refuses the second one; collides() tells that. Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace spool::broker {

inline constexpr size_t kMaxTopicNameLength = 249;

bool is_valid_topic_name(std::string_view name);
// Why a name is invalid ("" when valid), for error messages.
std::string topic_name_problem(std::string_view name);
bool topic_names_collide(std::string_view a, std::string_view b);
// Topics whose names start with "__" are internal (e.g. __consumer_offsets).
inline constexpr const char* kConsumerOffsetsTopic = "__consumer_offsets";
inline bool is_internal_topic(std::string_view name) {
  return name == "__consumer_offsets" || name == "__transaction_state";
}

}  // namespace spool::broker
