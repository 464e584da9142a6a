#include "security/jaas.h"

#include <cctype>

namespace spool::security {
namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$';
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool at_end() {
    skip_space();
    return i_ >= s_.size();
  }
  bool take(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::string word() {
    skip_space();
    size_t start = i_;
    while (i_ < s_.size() && word_char(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  // A quoted string or a bare word; false if neither is there.
  bool value(std::string& out) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == '"') {
      ++i_;
      out.clear();
      while (i_ < s_.size() && s_[i_] != '"') {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
        out += s_[i_++];
      }
      if (i_ >= s_.size()) return false;  // unterminated
      ++i_;
      return true;
    }
    out = word();
    return !out.empty();
  }
  size_t pos() const { return i_; }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

Status bad(const Scanner& sc, const std::string& what) {
  return Status::error("invalid JAAS configuration: " + what + " at character " + std::to_string(sc.pos() + 1) +
                       " (expected '<LoginModule class> required <option>=\"<value>\" ...;')");
}

}  // namespace

Result<JaasModule> parse_jaas_config(std::string_view text) {
  Scanner sc(text);
  JaasModule m;
  m.class_name = sc.word();
  if (m.class_name.empty()) return bad(sc, "no login module class");
  m.flag = sc.word();
  if (m.flag != "required" && m.flag != "requisite" && m.flag != "sufficient" && m.flag != "optional") {
    return bad(sc, "no control flag (required, requisite, sufficient or optional) after the login module class");
  }
  while (!sc.take(';')) {
    if (sc.at_end()) return bad(sc, "no ';' at the end of the login module");
    std::string name = sc.word();
    if (name.empty()) return bad(sc, "an option name");
    if (!sc.take('=')) return bad(sc, "no '=' after option '" + name + "'");
    std::string value;
    if (!sc.value(value)) return bad(sc, "no value (or an unterminated quote) for option '" + name + "'");
    if (!m.options.emplace(name, std::move(value)).second) {
      return bad(sc, "option '" + name + "' given twice");
    }
  }
  if (!sc.at_end()) {
    return bad(sc, "more than one login module (a sasl.jaas.config property names exactly one)");
  }
  return m;
}

}  // namespace spool::security
