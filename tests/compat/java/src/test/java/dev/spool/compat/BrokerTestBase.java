// Base of the Java test classes that share one broker and one admin client:
// the broker starts with the class's overrides (brokerOverrides()) before its
// first test and, with the admin client, is closed after its last; a failed
// test prints the broker's output (ShowBrokerLogOnFailure).
package dev.spool.compat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ShowBrokerLogOnFailure.class)
abstract class BrokerTestBase {
  TestBroker broker;
  Admin admin;

  /** The --override settings of this class's broker. */
  abstract Map<String, String> brokerOverrides();

  @BeforeAll
  void startBroker() {
    broker = TestBroker.start(brokerOverrides());
    admin = Clients.admin(broker.bootstrap());
  }

  @AfterAll
  void stopBroker() {
    if (admin != null) admin.close();
    if (broker != null) broker.close();
  }

  static <T> T get(KafkaFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }
}
