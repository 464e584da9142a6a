// UTF-8 validity, as the broker's JSON views and the CLI's record output
// need it (text when valid, base64 otherwise). Overlong forms, surrogates
// and code points above U+10FFFF are invalid. Pure functions.
#pragma once

#include <cstddef>
#include <string_view>

namespace spool::util {

// Length of the longest valid UTF-8 prefix of `s` (== s.size() when all of
// it is valid); never splits a character.
size_t utf8_valid_prefix(std::string_view s);

inline bool is_valid_utf8(std::string_view s) { return utf8_valid_prefix(s) == s.size(); }

}  // namespace spool::util
