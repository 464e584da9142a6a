#include "security/principal_mapping.h"

#include <locale>
#include <optional>
#include <regex>
#include <vector>

namespace spool::security {
namespace {

// Rules and DNs are read as code points, as Java reads them as characters.
static_assert(sizeof(wchar_t) == 4, "one code point per wchar_t");
using Text = std::wstring_view;
constexpr size_t kNone = Text::npos;

struct Rule {
  bool is_default = false;
  std::wstring pattern;      // as written, escapes kept
  std::wstring replacement;  // as written, escapes kept
  wchar_t fold = 0;          // 'L', 'U' or 0
  std::wregex re;
};

Status config_error(const std::string& what) { return Status::error("ssl.principal.mapping.rules: " + what); }

// UTF-8 to code points. A byte that starts no valid sequence becomes
// U+DC00 + byte, which no valid sequence decodes to, so narrow() restores it.
std::wstring widen(std::string_view s) {
  std::wstring out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t n = b < 0x80 ? 1 : b < 0xC2 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 0;
    char32_t c = n == 1 ? b : b & (0x7F >> n);
    size_t k = 1;
    for (; k < n && i + k < s.size() && (s[i + k] & 0xC0) == 0x80; ++k) c = c << 6 | (s[i + k] & 0x3F);
    const bool ok = n != 0 && k == n && (n != 3 || (c >= 0x800 && (c < 0xD800 || c > 0xDFFF))) &&
                    (n != 4 || (c >= 0x10000 && c <= 0x10FFFF));
    out += static_cast<wchar_t>(ok ? c : 0xDC00 + b);
    i += ok ? n : 1;
  }
  return out;
}

std::string narrow(Text w) {
  static constexpr unsigned char kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  std::string out;
  for (wchar_t wc : w) {
    const auto c = static_cast<char32_t>(wc);
    const int n = c < 0x80 || (c >= 0xDC80 && c <= 0xDCFF) ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (n == 1) {
      out += static_cast<char>(c < 0x80 ? c : c - 0xDC00);
      continue;
    }
    out += static_cast<char>(kLead[n] | c >> (6 * (n - 1)));
    for (int k = n - 2; k >= 0; --k) out += static_cast<char>(0x80 | ((c >> (6 * k)) & 0x3F));
  }
  return out;
}

// Java's \s, and the line terminators its `.` does not cross.
bool is_space(wchar_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_terminator(wchar_t c) { return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029; }

// Skips one part of a RULE: "\" with the character after it (not a line
// terminator), or any character but "\" and "/". Returns where it stopped.
size_t skip_part(Text t, size_t i) {
  while (i < t.size() && t[i] != '/' && (t[i] != '\\' || (i + 1 < t.size() && !is_terminator(t[i + 1])))) {
    i += t[i] == '\\' ? 2 : 1;
  }
  return i;
}

// The positions of the "/" after the pattern and after the replacement of
// a RULE whose pattern starts at i.
struct Shape {
  size_t pattern_end, close;
};
std::optional<Shape> rule_shape(Text t, size_t i) {
  const size_t p = skip_part(t, i);
  const size_t r = p < t.size() && t[p] == '/' ? skip_part(t, p + 1) : t.size();
  if (r >= t.size() || t[r] != '/') return std::nullopt;
  return Shape{p, r};
}

// Kafka's separator at q: spaces, then a comma and spaces, or the end (Java's
// `$`: also before a line terminator that ends the text). Returns its end.
size_t separator_at(Text t, size_t q) {
  while (q < t.size() && is_space(t[q])) ++q;
  if (q < t.size() && t[q] == ',') {
    for (++q; q < t.size() && is_space(t[q]);) ++q;
    return q;
  }
  return q == t.size() || (q + 1 == t.size() && is_terminator(t[q])) ? q : kNone;
}

struct Entry {
  size_t begin, end, next;  // the entry is [begin, end); the next search starts at next
};

// A lazy `.*?` from `from`: up to the first separator, crossing no line terminator.
std::optional<Entry> entry_up_to_separator(Text t, size_t begin, size_t from) {
  for (size_t q = from;; ++q) {
    if (size_t next = separator_at(t, q); next != kNone) return Entry{begin, q, next};
    if (q >= t.size() || is_terminator(t[q])) return std::nullopt;
  }
}

// One match of Kafka's splitter starting at s: DEFAULT, else a RULE with
// whatever follows it up to a separator, else any text up to one.
std::optional<Entry> entry_at(Text t, size_t s) {
  while (s < t.size() && is_space(t[s])) ++s;
  const Text rest = t.substr(s);
  if (rest.starts_with(L"DEFAULT")) {
    if (size_t next = separator_at(t, s + 7); next != kNone) return Entry{s, s + 7, next};
  }
  if (auto shape = rest.starts_with(L"RULE:") ? rule_shape(t, s + 5) : std::nullopt) {
    if (auto e = entry_up_to_separator(t, s, shape->close + 1)) return e;
  }
  return entry_up_to_separator(t, s, s);
}

// What in a pattern java.util.regex reads otherwise than ECMAScript, or
// nullptr: letter escapes outside the shared set, possessive quantifiers,
// and "[" or "&&" inside a class or "]" opening one.
const char* foreign_syntax(Text p) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const wchar_t c = p[i];
    const wchar_t next = i + 1 < p.size() ? p[i + 1] : 0;
    if (c == '\\') {
      const bool letter = (next | 0x20) >= 'a' && (next | 0x20) <= 'z';
      if (letter && Text(L"bBcdDfnrsStuwWx").find(next) == kNone) return "an escaped letter ECMAScript reads otherwise";
      ++i;
    } else if (in_class) {
      if (c == '[' || (c == '&' && next == '&')) return "a class within a class";
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (p.substr(i + 1).starts_with(L"]") || p.substr(i + 1).starts_with(L"^]")) return "`]` first in a class";
    } else if ((c == '*' || c == '+' || c == '?' || c == '}') && next == '+') {
      return "a possessive quantifier";
    }
  }
  return nullptr;
}

// Kafka's parser on one entry: DEFAULT, or RULE:pattern/replacement/ with an
// optional L or U, and nothing after it; an empty entry adds nothing.
Status parse_entry(Text e, std::vector<Rule>& rules) {
  if (e.empty()) return Status::ok();
  Rule r;
  size_t end = 0;
  if (e.starts_with(L"DEFAULT")) {
    r.is_default = true;
    end = 7;
  } else if (auto shape = e.starts_with(L"RULE:") ? rule_shape(e, 5) : std::nullopt) {
    r.pattern = e.substr(5, shape->pattern_end - 5);
    r.replacement = e.substr(shape->pattern_end + 1, shape->close - shape->pattern_end - 1);
    end = shape->close + 1;
    if (end < e.size() && (e[end] == 'L' || e[end] == 'U')) r.fold = e[end++];
  }
  if (end != e.size()) return config_error("invalid rule `" + narrow(e) + "`: unexpected `" + narrow(e.substr(end)) + "`");
  if (!r.is_default) {
    const std::string bad = "invalid pattern `" + narrow(r.pattern) + "` in rule `" + narrow(e) + "`: ";
    if (const char* what = foreign_syntax(r.pattern)) return config_error(bad + "Spool does not support " + what);
    try {
      r.re.imbue(std::locale::classic());  // \w and [[:alpha:]] stay ASCII, as in Java
      r.re.assign(r.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& err) {
      return config_error(bad + err.what());
    }
  }
  rules.push_back(std::move(r));
  return Status::ok();
}

std::string describe(const Rule& r) {
  if (r.is_default) return "DEFAULT";
  std::wstring s = L"RULE:" + r.pattern + L"/" + r.replacement;
  if (r.fold != 0) s += std::wstring(L"/") + r.fold;
  return narrow(s);
}

// Java's Matcher.appendReplacement, after Kafka's pre-escaping of "$n"
// whose first digit exceeds the group count (then the text is literal).
Status expand(const Rule& r, const std::wcmatch& m, std::wstring& out) {
  const std::wstring& t = r.replacement;
  const size_t groups = m.size() - 1;
  auto fail = [&](const std::string& why) { return config_error("rule `" + describe(r) + "` cannot build a name: " + why); };
  auto digit = [&](size_t i) { return i < t.size() && t[i] >= '0' && t[i] <= '9' ? size_t(t[i] - '0') : kNone; };
  for (size_t i = 0; i < t.size();) {
    if (t[i] == '\\' && i + 1 < t.size()) {  // a part never ends in a lone "\"
      out += t[i + 1];
      i += 2;
      continue;
    }
    size_t ref = t[i] == '$' ? digit(i + 1) : kNone;
    if (t[i] != '$' || (ref != kNone && groups > 0 && ref > groups)) {
      out += t[i++];
      continue;
    }
    if (ref == kNone) return fail("the replacement has a `$` not followed by a group number");
    if (ref > groups) return fail("the replacement refers to group " + std::to_string(ref) + ", the pattern has none");
    for (i += 2; digit(i) != kNone && ref * 10 + digit(i) <= groups; ++i) ref = ref * 10 + digit(i);
    if (m[ref].matched) out.append(m[ref].first, m[ref].second);
  }
  return Status::ok();
}

// Java's String.replaceAll: every match, found left to right, replaced.
Result<std::wstring> replace_all(const Rule& r, Text dn) {
  std::wstring out;
  size_t copied = 0;
  std::wcmatch m;
  for (size_t from = 0; from <= dn.size();) {
    const auto flags = from == 0 ? std::regex_constants::match_default : std::regex_constants::match_prev_avail;
    if (!std::regex_search(dn.data() + from, dn.data() + dn.size(), m, r.re, flags)) break;
    const size_t begin = from + m.position(0);
    const size_t end = begin + m.length(0);
    out.append(dn.substr(copied, begin - copied));
    if (Status s = expand(r, m, out); !s) return s;
    copied = end;
    from = end > begin ? end : end + 1;
  }
  out.append(dn.substr(copied));
  return out;
}

}  // namespace

struct PrincipalMapper::Rules {
  std::vector<Rule> list;
};

Result<PrincipalMapper> PrincipalMapper::parse(std::string_view text) {
  const std::wstring wide = widen(text);
  Text t = wide;  // Java's trim(): code points up to U+0020 go at both ends
  while (!t.empty() && t.front() <= ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() <= ' ') t.remove_suffix(1);
  if (t.empty()) return parse("DEFAULT");
  // Kafka's Matcher.find() loop: a match may start past text it skips, and
  // after an empty match the search moves on one character.
  auto rules = std::make_shared<Rules>();
  for (size_t from = 0; from <= t.size();) {
    std::optional<Entry> e;
    size_t s = from;
    while (s <= t.size() && !(e = entry_at(t, s))) ++s;
    if (!e) break;
    if (Status st = parse_entry(t.substr(e->begin, e->end - e->begin), rules->list); !st) return st;
    from = e->next > s ? e->next : e->next + 1;
  }
  return PrincipalMapper(std::move(rules));
}

Result<std::string> PrincipalMapper::name_for(std::string_view dn) const {
  if (dn.size() > kMaxDistinguishedName) {
    return config_error("a distinguished name of " + std::to_string(dn.size()) + " bytes is too long to map");
  }
  const std::wstring wide = widen(dn);
  try {
    for (const Rule& r : rules_->list) {
      if (r.is_default) return std::string(dn);
      if (!std::regex_match(wide.data(), wide.data() + wide.size(), r.re)) continue;
      Result<std::wstring> name = replace_all(r, wide);
      if (!name.is_ok()) return name.status();
      const wchar_t from = r.fold == 'L' ? 'A' : 'a';  // L and U fold ASCII letters only
      for (wchar_t& c : *name) {
        if (r.fold != 0 && c >= from && c <= from + 25) c ^= 0x20;
      }
      return narrow(*name);
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
