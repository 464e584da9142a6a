// PrincipalMapper: Kafka's ssl.principal.mapping.rules (KIP-371), which turn
// the subject distinguished name of a TLS client's certificate into the user
// name of its principal ("User:<name>"; the prefix is the caller's).
//
// The value is a comma-separated list of rules, tried in order:
//   RULE:<pattern>/<replacement>/[L|U]  applies when <pattern> matches the
//       whole DN; the name is the DN with each match of <pattern> replaced
//       by <replacement> (Java's replaceAll: "\x" is x, $n is group n, $0
//       the match), then lower- (L) or upper-cased (U). In both parts "\x"
//       keeps x from ending the part, so "\/" and "\," may appear.
//   DEFAULT  the DN unchanged.
// Splitting and parsing follow Kafka's regexes exactly, quirks included:
// spaces and newlines around commas are skipped, empty entries dropped,
// commas inside a RULE stay in it, trailing text after a rule is an error
// ("DEFAULT/L", "RULE:a/b/L/U"), and text that a line break keeps from
// reaching a comma is skipped. A value that is empty after trimming means
// DEFAULT (Spool cannot tell unset from empty; Kafka's "" means no rules).
//
// Differences from Kafka, all outside what real rules and DNs use:
//   * Patterns are std::regex ECMAScript over the DN's code points (UTF-8
//     decoded; a stray byte stays one character), not java.util.regex.
//     Java-only syntax is rejected at parse: (?i), named groups, lookbehind,
//     possessive quantifiers, and letter escapes other than \b \B \c \d
//     \D \f \n \r \s \S \t \u \w \W \x (\Q, \p{..}, \h, \R, \a...).
//     `$` matches only at the very end (Java also before a final newline);
//     groups inside a repeated group can capture differently after
//     backtracking; nested quantifiers such as (a*)+ can run far longer.
//   * L and U fold ASCII letters only.
//   * A "$n" whose first digit exceeds the group count is literal text.
//     Kafka means the same, but its pre-escaping goes wrong after the first
//     such reference or after "\$", and the connection then fails.
//   * std::regex recurses per character, so name_for refuses a DN longer
//     than kMaxDistinguishedName bytes (enough for any real certificate).
//
// Failure: parse returns an error naming ssl.principal.mapping.rules and the
// bad rule or pattern. name_for returns an error when no rule applies (Kafka
// then fails the connection) or the replacement is malformed ("$x", "$1"
// when the pattern has no groups), where Kafka throws too.
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
  static constexpr size_t kMaxDistinguishedName = 4096;

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
