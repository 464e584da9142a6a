#include "security/principal_mapping.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <vector>

namespace spool::security {

namespace {

struct Rule {
  bool is_default = false;
  std::string pattern;      // as written, escapes kept
  std::string replacement;  // as written, escapes kept
  char fold = 0;            // 'L', 'U' or 0
  std::regex re;
};

constexpr size_t kNone = std::string_view::npos;

Status config_error(std::string_view what) {
  return Status::error("ssl.principal.mapping.rules: " + std::string(what));
}

// Java's \s.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// The position after the (UTF-8) character at i.
size_t next_char(std::string_view t, size_t i) {
  ++i;
  while (i < t.size() && (static_cast<unsigned char>(t[i]) & 0xC0) == 0x80) ++i;
  return i;
}

// The length of the line terminator at i that Java's `.` does not cross
// (\n, \r, U+0085, U+2028, U+2029), or 0.
size_t terminator_at(std::string_view t, size_t i) {
  std::string_view s = t.substr(std::min(i, t.size()));
  if (!s.empty() && (s[0] == '\n' || s[0] == '\r')) return 1;
  if (s.starts_with("\xC2\x85")) return 2;
  return s.starts_with("\xE2\x80\xA8") || s.starts_with("\xE2\x80\xA9") ? 3 : 0;
}

// Java's `$` without MULTILINE: the end, or before a line terminator that ends the text.
bool at_dollar(std::string_view t, size_t i) {
  const size_t n = terminator_at(t, i);
  return i == t.size() || (n > 0 && i + n == t.size());
}

// Skips one part of a RULE: "\" with the character after it (not a line
// terminator), or any character but "\" and "/". Returns where it stopped.
size_t skip_part(std::string_view t, size_t i) {
  while (i < t.size() && t[i] != '/') {
    if (t[i] != '\\') {
      ++i;
    } else if (i + 1 < t.size() && terminator_at(t, i + 1) == 0) {
      i += 2;
    } else {
      break;
    }
  }
  return i;
}

// For "RULE:" ending just before i: the position of the "/" closing the
// replacement; the pattern's "/" is at *pattern_end.
std::optional<size_t> rule_shape(std::string_view t, size_t i, size_t* pattern_end) {
  *pattern_end = skip_part(t, i);
  if (*pattern_end >= t.size() || t[*pattern_end] != '/') return std::nullopt;
  size_t r = skip_part(t, *pattern_end + 1);
  if (r >= t.size() || t[r] != '/') return std::nullopt;
  return r;
}

// Kafka's separator at q: spaces, then a comma and spaces, or the end.
// Returns where the separator ends, or kNone.
size_t separator_at(std::string_view t, size_t q) {
  while (q < t.size() && is_space(t[q])) ++q;
  if (q < t.size() && t[q] == ',') {
    for (++q; q < t.size() && is_space(t[q]);) ++q;
    return q;
  }
  return at_dollar(t, q) ? q : kNone;
}

struct Entry {
  size_t begin, end, next;  // the rule text is [begin, end); the match ends at next
};

// Where a lazy `.*?` starting at from stops: the first separator it reaches
// without crossing a line terminator.
std::optional<Entry> entry_up_to_separator(std::string_view t, size_t begin, size_t from) {
  for (size_t q = from;; q = next_char(t, q)) {
    if (size_t next = separator_at(t, q); next != kNone) return Entry{begin, q, next};
    if (q >= t.size() || terminator_at(t, q) > 0) return std::nullopt;
  }
}

// One match of Kafka's rule splitter starting at s: DEFAULT, else a RULE
// with whatever follows it up to a separator, else any text up to one.
std::optional<Entry> entry_at(std::string_view t, size_t s) {
  size_t w = s;
  while (w < t.size() && is_space(t[w])) ++w;
  const std::string_view rest = t.substr(w);
  if (rest.starts_with("DEFAULT")) {
    if (size_t next = separator_at(t, w + 7); next != kNone) return Entry{w, w + 7, next};
  }
  size_t pattern_end = 0;
  if (rest.starts_with("RULE:")) {
    if (auto close = rule_shape(t, w + 5, &pattern_end)) {
      if (auto e = entry_up_to_separator(t, w, *close + 1)) return e;
    }
  }
  return entry_up_to_separator(t, w, w);
}

// Java's String.trim(): every character up to U+0020 goes at both ends.
std::string_view trim(std::string_view t) {
  auto blank = [](char c) { return static_cast<unsigned char>(c) <= ' '; };
  while (!t.empty() && blank(t.front())) t.remove_prefix(1);
  while (!t.empty() && blank(t.back())) t.remove_suffix(1);
  return t;
}

// The first escaped letter that java.util.regex and ECMAScript do not read
// alike: Java rejects unknown ones and gives \v, \h, \A, \Q... other meanings.
char foreign_escape(std::string_view p) {
  for (size_t i = 0; i + 1 < p.size(); i += p[i] == '\\' ? 2 : 1) {
    const char c = p[i + 1];
    if (p[i] == '\\' && std::isalpha(static_cast<unsigned char>(c)) && std::string_view("bBcdDfnrsStuwWx").find(c) == kNone) return c;
  }
  return 0;
}

// Kafka's parser on one entry: DEFAULT, or RULE:pattern/replacement/ with an
// optional L or U, and nothing after it; an empty entry adds nothing.
Status parse_entry(std::string_view e, std::vector<Rule>& rules) {
  if (e.empty()) return Status::ok();
  Rule r;
  size_t end = 0;
  size_t pattern_end = 0;
  if (e.starts_with("DEFAULT")) {
    r.is_default = true;
    end = 7;
  } else if (auto close = e.starts_with("RULE:") ? rule_shape(e, 5, &pattern_end) : std::nullopt) {
    r.pattern = e.substr(5, pattern_end - 5);
    r.replacement = e.substr(pattern_end + 1, *close - pattern_end - 1);
    end = *close + 1;
    if (end < e.size() && (e[end] == 'L' || e[end] == 'U')) r.fold = e[end++];
  }
  if (end != e.size()) {
    return config_error("invalid rule `" + std::string(e) + "`: unexpected `" + std::string(e.substr(end)) + "`");
  }
  if (!r.is_default) {
    const std::string bad = "invalid pattern `" + r.pattern + "` in rule `" + std::string(e) + "`: ";
    if (char c = foreign_escape(r.pattern); c != 0) return config_error(bad + "Spool does not support \\" + c);
    try {
      r.re = std::regex(r.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& err) {
      return config_error(bad + err.what());
    }
  }
  rules.push_back(std::move(r));
  return Status::ok();
}

std::string describe(const Rule& r) {
  if (r.is_default) return "DEFAULT";
  std::string s = "RULE:" + r.pattern + "/" + r.replacement;
  if (r.fold != 0) s += std::string("/") + r.fold;
  return s;
}

// Java's Matcher.appendReplacement, after Kafka's pre-escaping of "$n"
// whose first digit exceeds the group count (then the text is literal).
Status expand(const Rule& r, const std::cmatch& m, std::string& out) {
  const std::string& t = r.replacement;
  const size_t groups = m.size() - 1;
  auto fail = [&](const std::string& why) {
    return config_error("rule `" + describe(r) + "` cannot build a name: " + why);
  };
  for (size_t i = 0; i < t.size();) {
    if (t[i] == '\\') {
      if (i + 1 == t.size()) return fail("the replacement ends in a lone \\");
      out += t[i + 1];
      i += 2;
      continue;
    }
    const bool digit = t[i] == '$' && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]));
    if (t[i] != '$' || (digit && groups > 0 && size_t(t[i + 1] - '0') > groups)) {
      out += t[i++];
      continue;
    }
    if (!digit) return fail("the replacement has a `$` not followed by a group number");
    size_t ref = t[i + 1] - '0';
    if (ref > groups) return fail("the replacement refers to group " + std::to_string(ref) + " of a pattern without groups");
    for (i += 2; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && ref * 10 + (t[i] - '0') <= groups; ++i) {
      ref = ref * 10 + (t[i] - '0');
    }
    if (m[ref].matched) out.append(m[ref].first, m[ref].second);
  }
  return Status::ok();
}

// Java's String.replaceAll: every match, found left to right, replaced.
Result<std::string> replace_all(const Rule& r, std::string_view dn) {
  std::string out;
  size_t copied = 0;
  std::cmatch m;
  for (size_t from = 0; from <= dn.size();) {
    const auto flags = from == 0 ? std::regex_constants::match_default : std::regex_constants::match_prev_avail;
    if (!std::regex_search(dn.data() + from, dn.data() + dn.size(), m, r.re, flags)) break;
    const size_t begin = from + m.position(0);
    const size_t end = begin + m.length(0);
    out.append(dn.substr(copied, begin - copied));
    if (Status s = expand(r, m, out); !s) return s;
    copied = end;
    from = end > begin ? end : next_char(dn, end);
  }
  out.append(dn.substr(copied));
  return out;
}

}  // namespace

struct PrincipalMapper::Rules {
  std::vector<Rule> list;
};

Result<PrincipalMapper> PrincipalMapper::parse(std::string_view text) {
  auto rules = std::make_shared<Rules>();
  const std::string_view t = trim(text);
  if (t.empty()) return parse(std::string_view("DEFAULT"));
  // Kafka's Matcher.find() loop: a match may start after text it skips, and
  // after an empty match the search moves on one character.
  for (size_t from = 0; from <= t.size();) {
    std::optional<Entry> e;
    size_t s = from;
    while (s <= t.size() && !(e = entry_at(t, s))) s = next_char(t, s);
    if (!e) break;
    if (Status st = parse_entry(t.substr(e->begin, e->end - e->begin), rules->list); !st) return st;
    from = e->next > s ? e->next : next_char(t, e->next);
  }
  return PrincipalMapper(std::move(rules));
}

Result<std::string> PrincipalMapper::name_for(std::string_view dn) const {
  if (dn.size() > kMaxDistinguishedName) {
    return config_error("a distinguished name of " + std::to_string(dn.size()) + " bytes is too long to map");
  }
  try {
    for (const Rule& r : rules_->list) {
      if (r.is_default) return std::string(dn);
      if (!std::regex_match(dn.data(), dn.data() + dn.size(), r.re)) continue;
      Result<std::string> name = replace_all(r, dn);
      if (!name.is_ok() || r.fold == 0) return name;
      const char from = r.fold == 'L' ? 'A' : 'a';
      for (char& c : *name) {
        if (c >= from && c <= from + 25) c = static_cast<char>(c ^ 0x20);
      }
      return name;
    }
  } catch (const std::regex_error& err) {
    return config_error("matching `" + std::string(dn) + "` failed: " + err.what());
  }
  return config_error("no rule matches `" + std::string(dn) + "` (rules " + to_string() + ")");
}

std::string PrincipalMapper::to_string() const {
  std::string s = "[";
  for (const Rule& r : rules_->list) s += (s.size() > 1 ? ", " : "") + describe(r);
  return s + "]";
}

}  // namespace spool::security
