// A minimal well-formedness check for the SVG the report writes: balanced
// tags, one root, quoted attributes, only the five predefined entities or
// numeric references, no raw '<' or '&' in text. Test helper only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace spool::bench::testing {

// Returns "" when well-formed, else what is wrong.
inline std::string xml_problem(std::string_view s) {
  std::vector<std::string> stack;
  int roots = 0;
  auto entity_ok = [&](size_t i) {
    for (std::string_view e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (s.substr(i, e.size()) == e) return true;
    if (s.substr(i, 2) == "&#") {
      size_t semi = s.find(';', i);
      return semi != std::string_view::npos && semi > i + 2 && semi < i + 10;
    }
    return false;
  };
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '&') {
      if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s[i] == '>') return "raw '>' in text at " + std::to_string(i);
    if (s[i] != '<') {
      if (stack.empty() && s[i] != '\n' && s[i] != ' ') return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s.substr(i, 2) == "<?") {
      size_t e = s.find("?>", i);
      if (e == std::string_view::npos) return "unterminated <?";
      i = e + 2;
      continue;
    }
    if (s.substr(i, 4) == "<!--") {
      size_t e = s.find("-->", i);
      if (e == std::string_view::npos) return "unterminated comment";
      i = e + 3;
      continue;
    }
    // A tag: scan to '>' outside quotes.
    size_t j = i + 1;
    char quote = 0;
    for (; j < s.size(); ++j) {
      char c = s[j];
      if (quote) {
        if (c == quote) quote = 0;
        else if (c == '<') return "'<' in an attribute at " + std::to_string(j);
        else if (c == '&' && !entity_ok(j)) return "bad entity in an attribute at " + std::to_string(j);
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      } else if (c == '<') {
        return "'<' inside a tag at " + std::to_string(j);
      }
    }
    if (j >= s.size()) return "unterminated tag at " + std::to_string(i);
    std::string_view tag = s.substr(i + 1, j - i - 1);
    i = j + 1;
    bool closing = !tag.empty() && tag[0] == '/';
    bool self = !tag.empty() && tag.back() == '/';
    std::string_view body = tag.substr(closing ? 1 : 0);
    size_t end = body.find_first_of(" \t\n/");
    std::string name(body.substr(0, end));
    if (name.empty()) return "empty tag name";
    if (closing) {
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
    } else {
      if (stack.empty()) ++roots;
      if (!self) stack.push_back(name);
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

}  // namespace spool::bench::testing
