#include "security/principal_mapping.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace spool::security {
namespace {

std::string name(const PrincipalMapper& m, std::string_view dn) {
  auto n = m.name_for(dn);
  return n.is_ok() ? *n : "error: " + n.status().message();
}

PrincipalMapper mapper(std::string_view rules) {
  auto m = PrincipalMapper::parse(rules);
  EXPECT_TRUE(m.is_ok()) << rules << ": " << m.status().message();
  return m.is_ok() ? *m : *PrincipalMapper::parse("DEFAULT");
}

std::string rules_of(std::string_view text) {
  auto m = PrincipalMapper::parse(text);
  return m.is_ok() ? m->to_string() : "error: " + m.status().message();
}

TEST(PrincipalMappingTest, AcceptsKafkasValidRules) {
  for (const char* rules : {
           "DEFAULT",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT",
           "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/",
           "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L",
           "RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U",
           "RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/",
           "RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/",
       }) {
    EXPECT_TRUE(PrincipalMapper::parse(rules).is_ok()) << rules;
  }
}

TEST(PrincipalMappingTest, RejectsKafkasInvalidRules) {
  for (const char* rules : {
           "default",
           "DEFAUL",
           "DEFAULT/L",
           "DEFAULT/U",
           "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
           "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU",
       }) {
    auto m = PrincipalMapper::parse(rules);
    ASSERT_FALSE(m.is_ok()) << rules;
    EXPECT_NE(m.status().message().find("ssl.principal.mapping.rules"), std::string::npos);
  }
}

TEST(PrincipalMappingTest, ErrorNamesTheBadPart) {
  EXPECT_EQ(rules_of("DEFAULT, RULE:a/b/L/U"),
            "error: ssl.principal.mapping.rules: invalid rule `RULE:a/b/L/U`: unexpected `/U`");
  EXPECT_EQ(rules_of("DEFAUL"), "error: ssl.principal.mapping.rules: invalid rule `DEFAUL`: unexpected `DEFAUL`");
  EXPECT_NE(rules_of("RULE:CN=(x/$1/").find("invalid pattern `CN=(x` in rule `RULE:CN=(x/$1/`"), std::string::npos);
}

TEST(PrincipalMappingTest, SplitsRulesAsKafkaDoes) {
  EXPECT_EQ(rules_of("DEFAULT"), "[DEFAULT]");
  EXPECT_EQ(rules_of("RULE://"), "[RULE:/]");
  EXPECT_EQ(rules_of("RULE:/.*/"), "[RULE:/.*]");
  EXPECT_EQ(rules_of("RULE:/.*/L"), "[RULE:/.*/L]");
  EXPECT_EQ(rules_of("RULE://,DEFAULT"), "[RULE:/, DEFAULT]");
  EXPECT_EQ(rules_of("  RULE:// ,  DEFAULT  "), "[RULE:/, DEFAULT]");
  EXPECT_EQ(rules_of("  RULE:   /     / ,  DEFAULT  "), "[RULE:   /     , DEFAULT]");
  EXPECT_EQ(rules_of("  RULE:  /     /U   ,DEFAULT  "), "[RULE:  /     /U, DEFAULT]");
  EXPECT_EQ(rules_of("  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  "),
            "[RULE:([A-Z]*)/$1/U, RULE:([a-z]+)/$1, DEFAULT]");
  // Empty entries are dropped.
  EXPECT_EQ(rules_of(",   , , ,      , , ,   "), "[]");
  EXPECT_EQ(rules_of(",,RULE://,,,DEFAULT,,"), "[RULE:/, DEFAULT]");
  EXPECT_EQ(rules_of(",  , RULE: /   /    ,,,   DEFAULT, ,   "), "[RULE: /   , DEFAULT]");
  EXPECT_EQ(rules_of("     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,"), "[RULE:   /  /U, DEFAULT]");
  // Newlines count as spaces around the separators.
  EXPECT_EQ(rules_of("RULE:^CN=(.*)$/$1/L,\n  DEFAULT\n"), "[RULE:^CN=(.*)$/$1/L, DEFAULT]");
  EXPECT_EQ(rules_of("RULE:^CN=(.*)$/$1/\n,DEFAULT"), "[RULE:^CN=(.*)$/$1, DEFAULT]");
}

TEST(PrincipalMappingTest, EscapesAndCommasStayInsideARule) {
  EXPECT_EQ(rules_of(R"(RULE:\/\\\(\)\n\t/\/\//)"), R"([RULE:\/\\\(\)\n\t/\/\/])");
  EXPECT_EQ(rules_of(R"(RULE:\**\/+/*/L,RULE:\/*\**/**/)"), R"([RULE:\**\/+/*/L, RULE:\/*\**/**])");
  EXPECT_EQ(rules_of(R"(RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, /DEFAULT/,DEFAULT)"),
            R"([RULE:,RULE:,/,RULE:,\//U, RULE:,/RULE:,, RULE:,RULE:,/L,RULE:,/L, RULE:, DEFAULT, /DEFAULT, DEFAULT])");
}

TEST(PrincipalMappingTest, FirstMatchingRuleWins) {
  PrincipalMapper m = mapper(
      "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, "
      "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, "
      "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, "
      "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, "
      "DEFAULT");
  EXPECT_EQ(name(m, "CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
  EXPECT_EQ(name(m, "CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"), "duke@sme");
  EXPECT_EQ(name(m, "cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
  EXPECT_EQ(name(m, "cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
  EXPECT_EQ(name(m, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST(PrincipalMappingTest, EscapedCommaInTheName) {
  PrincipalMapper m = mapper(R"(RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT)");
  EXPECT_EQ(name(m, R"(CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz)"), R"(Tkac\, Adam)");
}

TEST(PrincipalMappingTest, EscapedSlashInPatternAndReplacement) {
  PrincipalMapper m = mapper(R"(RULE:^CN=([^\/,]+)\/([^,]+),.*$/$1\/$2/)");
  EXPECT_EQ(name(m, "CN=team/alice,O=Spool"), "team/alice");
}

TEST(PrincipalMappingTest, LowerAndUpperCase) {
  EXPECT_EQ(name(mapper("RULE:^CN=([^,]*).*$/$1-X/L"), "CN=MiXeD,O=A"), "mixed-x");
  EXPECT_EQ(name(mapper("RULE:^CN=([^,]*).*$/$1-x/U"), "CN=MiXeD,O=A"), "MIXED-X");
  EXPECT_EQ(name(mapper("RULE:^CN=([^,]*).*$/$1-x/"), "CN=MiXeD,O=A"), "MiXeD-x");
}

TEST(PrincipalMappingTest, DefaultAndEmptyValueKeepTheDn) {
  const std::string dn = "CN=client-1,OU=eng,O=Spool,L=Oslo,C=NO";
  EXPECT_EQ(name(mapper("DEFAULT"), dn), dn);
  EXPECT_EQ(name(mapper(""), dn), dn);
  EXPECT_EQ(name(mapper(" \n "), dn), dn);
  EXPECT_EQ(mapper("").to_string(), "[DEFAULT]");
}

TEST(PrincipalMappingTest, NoMatchingRuleIsAnError) {
  PrincipalMapper m = mapper("RULE:^CN=([^,]*),OU=eng,.*$/$1/");
  auto n = m.name_for("CN=client-1,OU=ops,O=Spool");
  ASSERT_FALSE(n.is_ok());
  EXPECT_NE(n.status().message().find("no rule matches `CN=client-1,OU=ops,O=Spool`"), std::string::npos);
  // Only commas: no rules at all, so nothing maps (as in Kafka).
  EXPECT_FALSE(mapper(" , ,").name_for("CN=a").is_ok());
}

TEST(PrincipalMappingTest, OpenSslRfc2253Dn) {
  PrincipalMapper m = mapper(
      "RULE:^CN=([^,]+),OU=eng,O=Spool,.*$/$1/L,\n"
      "RULE:^CN=([^,]+),OU=([^,]+),O=Spool,L=([^,]+),C=NO$/$1@$2.$3/U,\n"
      "DEFAULT");
  EXPECT_EQ(name(m, "CN=Client-1,OU=eng,O=Spool,L=Oslo,C=NO"), "client-1");
  EXPECT_EQ(name(m, "CN=client-2,OU=ops,O=Spool,L=Oslo,C=NO"), "CLIENT-2@OPS.OSLO");
  EXPECT_EQ(name(m, "CN=client-3,O=Other,C=SE"), "CN=client-3,O=Other,C=SE");
}

TEST(PrincipalMappingTest, GroupReferencesFollowJava) {
  const std::string dn = "CN=a,O=b";
  EXPECT_EQ(name(mapper("RULE:^CN=(.),O=(.)$/$2$1$0$12/"), dn), "baCN=a,O=ba2");
  EXPECT_EQ(name(mapper(R"(RULE:^CN=(.),O=(.)$/$3$1\$1\\/)"), dn), R"($3a$1\)");
  EXPECT_EQ(name(mapper("RULE:^CN=.*$/$0!/"), dn), "CN=a,O=b!");
  // Kafka's rule: Java's replaceAll, so an empty match at the end adds one more.
  EXPECT_EQ(name(mapper("RULE:(.*)/[$1]/"), dn), "[CN=a,O=b][]");
  for (const char* bad : {"RULE:^CN=.*$/$1/", "RULE:^(CN)=.*$/$x/", "RULE:^(CN)=.*$/${x}/"}) {
    auto n = mapper(bad).name_for(dn);
    ASSERT_FALSE(n.is_ok()) << bad;
    EXPECT_NE(n.status().message().find("cannot build a name"), std::string::npos) << n.status().message();
  }
}

TEST(PrincipalMappingTest, RejectsPatternsItCannotReadAsJavaDoes) {
  for (const char* rules : {"RULE:(?i)cn=(.*)/$1/", R"(RULE:^\QCN\E=(.*)$/$1/)", "RULE:(?<n>.*)/$1/", "RULE:(?<=a)b/x/",
                            "RULE:a++/x/", "RULE:a{2}+/x/", R"(RULE:\p{Alpha}/x/)", R"(RULE:\h/x/)", "RULE:[a-z&&[^b]]/x/",
                            "RULE:[[:alpha:]]/x/", "RULE:[]a]/x/", "RULE:[^]a]/x/"}) {
    EXPECT_FALSE(PrincipalMapper::parse(rules).is_ok()) << rules;
  }
  for (const char* rules : {R"(RULE:[\[\]a&]\d\D\s\S\w\W\b\t\x41\u0041\cA\.\\/x/)", "RULE:[a-z]+?a*?b??c{1,2}?/x/"}) {
    EXPECT_TRUE(PrincipalMapper::parse(rules).is_ok()) << rules;
  }
}

TEST(PrincipalMappingTest, MatchesCharactersNotBytes) {
  PrincipalMapper m = mapper("RULE:^CN=(.)(.)(.*),O=.*$/$2$1$3/L");
  EXPECT_EQ(name(m, "CN=Ésa,O=x"), "sÉa");
  EXPECT_EQ(name(mapper("RULE:^CN=(\\w+)$/$1/,RULE:^CN=([^,]+)$/other-$1/"), "CN=\xff\xfeé"), "other-\xff\xfeé");
}

TEST(PrincipalMappingTest, RefusesOverlongDn) {
  std::string dn = "CN=" + std::string(PrincipalMapper::kMaxDistinguishedName, 'a');
  EXPECT_FALSE(mapper("DEFAULT").name_for(dn).is_ok());
}

TEST(PrincipalMappingTest, CopiesShareRulesAcrossThreads) {
  const PrincipalMapper m = mapper("RULE:^CN=([^,]+),.*$/$1/U");
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([copy = m, &got, i] {
      for (int k = 0; k < 200; ++k) got[i] = name(copy, "CN=c" + std::to_string(i) + ",O=x");
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], "C" + std::to_string(i));
}

}  // namespace
}  // namespace spool::security
