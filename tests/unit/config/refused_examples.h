// Test helper: for a kRefused key, a value that parses (so the start fails
// because the key is refused, not because the value is bad) and that is not
// the key's off value. Shared by refusal_test.cc and the refused_keys_tool
// that tests/system/test_fail_closed.py runs against the real binary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config_def.h"

namespace spool::config::testing {

inline std::vector<std::string> candidate_values(const KeyDef& d) {
  std::vector<std::string> out;
  auto choices = [&](const char* c) {
    std::string all(c);
    size_t start = 0;
    for (size_t bar; (bar = all.find('|', start)) != std::string::npos; start = bar + 1)
      out.push_back(all.substr(start, bar - start));
    out.push_back(all.substr(start));
  };
  if (d.check.choices != nullptr) choices(d.check.choices);
  switch (d.type) {
    case ConfigType::kBoolean: out.insert(out.end(), {"true", "false"}); break;
    case ConfigType::kShort:
    case ConfigType::kInt:
    case ConfigType::kLong: {
      int64_t base = d.default_value != nullptr ? to_int64(d.default_value) : 1;
      for (int64_t delta : {1, -1, 2}) {
        int64_t v = 0;
        if (!__builtin_add_overflow(base, delta, &v)) out.push_back(std::to_string(v));
      }
      if (d.check.kind == CheckKind::kRange) out.push_back(std::to_string(d.check.lo));
      break;
    }
    case ConfigType::kDouble: out.insert(out.end(), {"0.25", "0.5", "0.1"}); break;
    default: out.insert(out.end(), {"x", "User:admin", "org.example.Something"}); break;
  }
  return out;
}

inline std::optional<std::string> refused_example(const KeyDef& d) {
  for (const std::string& v : candidate_values(d)) {
    auto parsed = parse_value(d, v);
    if (parsed.is_ok() && !is_off_value(d, *parsed)) return v;
  }
  return std::nullopt;
}

}  // namespace spool::config::testing
