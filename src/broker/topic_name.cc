#include "broker/topic_name.h"

namespace spool::broker {

std::string topic_name_problem(std::string_view name) {
  if (name.empty()) return "topic name is empty";
  if (name == "." || name == "..") return "topic name cannot be '.' or '..'";
  if (name.size() > kMaxTopicNameLength)
    return "topic name is longer than " + std::to_string(kMaxTopicNameLength) + " characters";
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return "topic name contains characters other than ASCII alphanumerics, '.', '_' and '-'";
  }
  return "";
}

bool is_valid_topic_name(std::string_view name) { return topic_name_problem(name).empty(); }

bool topic_names_collide(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || a == b) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] == '.' ? '_' : a[i];
    char y = b[i] == '.' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

}  // namespace spool::broker
