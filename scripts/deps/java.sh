#!/usr/bin/env bash
# The Java compatibility suite's tools and dependencies (tests/compat/java):
# Debian's default JDK (17) and Maven when `java`, `javac` or `mvn` is missing,
# then every pinned dependency and plugin of its pom into ~/.m2 (resolving,
# compiling and starting surefire once without running a test), so the ctest
# entry runs `mvn -o` and downloads nothing. Idempotent; when the pom has not
# changed since the last successful fetch it only checks the stamp.
set -euo pipefail
cd "$(dirname "$0")/../.."
PROJECT=tests/compat/java

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  echo "deps/java: installing default-jdk-headless maven"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends default-jdk-headless maven
fi

M2="${HOME}/.m2"
STAMP="$M2/spool-compat-java.stamp"
WANT="$(cat "$PROJECT/pom.xml" | sha256sum | cut -d' ' -f1) $(mvn -v 2>/dev/null | sed -n 1p | tr -d '\033')"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -d "$M2/repository/org/apache/kafka/kafka-streams/4.4.0" ]; then
  exit 0
fi

echo "deps/java: fetching the Maven dependencies and plugins of $PROJECT"
(
  cd "$PROJECT"
  mvn -B -q -ntp -Dstyle.color=never dependency:go-offline
  # Surefire resolves its JUnit Platform provider only when it launches the
  # platform: run it with a tag filter that selects no test (no broker needed).
  mvn -B -q -ntp -Dstyle.color=never test -Dgroups=fetch-only
  # Prove the offline run works.
  mvn -B -q -ntp -Dstyle.color=never -o test -Dgroups=fetch-only
)
mkdir -p "$M2"
echo "$WANT" > "$STAMP"
