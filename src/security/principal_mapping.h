// PrincipalMapper: Kafka's ssl.principal.mapping.rules (KIP-371), which turn
// the subject distinguished name of a TLS client's certificate into the user
// name of its principal ("User:<name>"; the prefix is the caller's).
//
// The value is a comma-separated list of rules, tried in order:
//   RULE:<pattern>/<replacement>/[L|U]  applies when <pattern> matches the
//       whole DN; the name is the DN with each match of <pattern> replaced
//       by <replacement> (Java's replaceAll), then lower- (L) or upper-cased
//       (U). "\x" in pattern or replacement keeps x from ending the part, so
//       "\/" and "\," may appear; the text is passed on as written (to the
//       regex, or to the replacement, where "\x" stands for x and $n for
//       group n, as in Java).
//   DEFAULT  the DN unchanged.
// Splitting and parsing follow Kafka's regexes exactly, quirks included:
// whitespace and newlines around commas are skipped, empty entries are
// dropped, commas inside a RULE stay part of it, and any trailing text
// after a rule ("DEFAULT/L", "RULE:a/b/L/U") is an error. A value that is
// empty after trimming means DEFAULT (Kafka's default; Spool cannot tell an
// unset value from an empty one, while Kafka's empty value means no rules).
//
// Differences from Kafka, all outside what real rules and DNs use:
//   * Patterns are std::regex ECMAScript on bytes, not java.util.regex:
//     patterns using Java-only syntax (possessive quantifiers, lookbehind,
//     named groups, \p{..}, \Q..\E, inline flags such as (?i)) are rejected
//     at parse; `$` matches only at the very end (Java also matches before
//     a final line terminator); `.` treats a multi-byte UTF-8 character as
//     several characters.
//   * L and U fold ASCII letters only.
//   * A "$n" whose first digit exceeds the pattern's group count is literal
//     text. Kafka means the same, but its pre-escaping misplaces the escape
//     after the first such reference or after "\$", and then fails.
//   * std::regex backtracks recursively, so a DN of many KiB could exhaust
//     the stack: name_for refuses DNs longer than kMaxDistinguishedName.
//
// Failure: parse returns an error naming ssl.principal.mapping.rules and the
// bad rule or pattern. name_for returns an error when no rule applies (Kafka
// then fails the connection) or the replacement is malformed ("$x", a
// trailing "\", "$1" with a pattern without groups), as Kafka throws then.
// Threading: immutable after parse; copies share the compiled rules, and
// name_for may run on any number of threads at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

namespace spool::security {

class PrincipalMapper {
 public:
  static constexpr size_t kMaxDistinguishedName = 8192;

  static Result<PrincipalMapper> parse(std::string_view rules);

  // The user name for this DN (without "User:").
  Result<std::string> name_for(std::string_view distinguished_name) const;

  // The rules in Kafka's toString form, e.g. "[RULE:^CN=(.*?),.*$/$1/L, DEFAULT]".
  std::string to_string() const;

 private:
  struct Rules;
  explicit PrincipalMapper(std::shared_ptr<const Rules> rules) : rules_(std::move(rules)) {}
  std::shared_ptr<const Rules> rules_;
};

}  // namespace spool::security
