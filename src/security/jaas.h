// JAAS configuration text as Kafka brokers take it in
// listener.name.<listener>.<mechanism>.sasl.jaas.config:
//
//   <login module class> <flag> [<option>=<value> ...];
//
// Values are double-quoted strings (with \" and \\ escapes) or bare words of
// letters, digits and "_.-$". Kafka's rule for the property form holds: it
// names exactly one login module. Pure functions; errors say what was
// expected and where, and never echo option values (they hold passwords).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/status.h"

namespace spool::security {

struct JaasModule {
  std::string class_name;  // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
  std::string flag;        // required | requisite | sufficient | optional
  std::map<std::string, std::string> options;
};

Result<JaasModule> parse_jaas_config(std::string_view text);

}  // namespace spool::security
