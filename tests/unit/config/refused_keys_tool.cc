// Test tool for tests/system/test_fail_closed.py, which starts the real
// `spool broker` with what it prints, one key per line:
//   R<TAB>key<TAB>value  a refused key with a value that must stop the start;
//   N<TAB>key<TAB>value  a harmless key with a valid value (its default where
//                        it has one) that must start with the warning.
// Exits 1 if a key has no such value (the table and refused_examples.h disagree).
#include <iostream>

#include "config/config_def.h"
#include "refused_examples.h"

int main() {
  using namespace spool::config;
  int missing = 0;
  for (const KeyDef& d : broker_key_defs()) {
    if (d.acts == Acts::kYes) continue;
    std::optional<std::string> v;
    if (d.acts == Acts::kRefused) {
      v = testing::refused_example(d);
    } else if (d.default_value != nullptr) {
      v = d.default_value;
    } else {
      for (const std::string& c : testing::candidate_values(d))
        if (parse_value(d, c).is_ok()) {
          v = c;
          break;
        }
    }
    if (!v) {
      std::cerr << "no example value for " << d.name << "\n";
      ++missing;
      continue;
    }
    std::cout << (d.acts == Acts::kRefused ? "R" : "N") << "\t" << d.name << "\t" << *v << "\n";
  }
  return missing == 0 ? 0 : 1;
}
