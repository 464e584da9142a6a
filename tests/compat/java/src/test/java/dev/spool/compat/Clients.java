// Client configuration and bounded read helpers shared by the Java
// compatibility tests: producer/consumer/admin properties, unique topic
// names, topic creation, "read a partition set to its end" (the end being the
// high watermark for read_uncommitted and the last stable offset for
// read_committed, as the consumer reports it) and printed random seeds.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

final class Clients {
  static final Duration POLL = Duration.ofMillis(100);

  private Clients() {}

  static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    return p;
  }

  static Properties consumerProps(String bootstrap, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return p;
  }

  /** Classic-protocol group member with short timeouts (fast rebalances). */
  static Properties groupConsumerProps(String bootstrap, String group, String isolation) {
    Properties p = consumerProps(bootstrap, isolation);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
    return p;
  }

  static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(p);
  }

  static String topic(String base) {
    return base + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static void createTopic(Admin admin, String name, int partitions, Map<String, String> configs)
      throws Exception {
    NewTopic t = new NewTopic(name, java.util.Optional.of(partitions), java.util.Optional.empty());
    if (configs != null) t.configs(configs);
    admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
    awaitTopicReady(admin, name, partitions);
  }

  /**
   * Waits until every partition has a leader that answers ListOffsets. Kafka's
   * broker applies a new topic a moment after CreateTopics returns; a produce
   * in between gets NOT_LEADER_OR_FOLLOWER (and an idempotent producer then
   * retries its later batches with OUT_OF_ORDER_SEQUENCE_NUMBER until timeout).
   */
  static void awaitTopicReady(Admin admin, String name, int partitions) {
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    for (TopicPartition tp : partitions(name, partitions)) specs.put(tp, OffsetSpec.latest());
    String[] last = {""};
    waitUntil(30_000, () -> {
      try {
        var d = admin.describeTopics(List.of(name)).allTopicNames().get(10, TimeUnit.SECONDS).get(name);
        if (d.partitions().size() != partitions || d.partitions().stream().anyMatch(p -> p.leader() == null)) {
          last[0] = "partitions " + d.partitions();
          return false;
        }
        admin.listOffsets(specs).all().get(10, TimeUnit.SECONDS);
        return true;
      } catch (Exception e) {
        last[0] = e.toString();
        return false;
      }
    }, () -> "topic " + name + " not ready: " + last[0]);
  }

  static List<TopicPartition> partitions(String topic, int n) {
    List<TopicPartition> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(new TopicPartition(topic, i));
    return out;
  }

  /**
   * Reads `tps` from their beginning to the end offsets the consumer reports
   * for its isolation level, within `timeoutMs`. Returns the records per
   * partition in offset order.
   */
  static Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> readToEnd(
      String bootstrap, Collection<TopicPartition> tps, String isolation, long timeoutMs) {
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
    for (TopicPartition tp : tps) out.put(tp, new ArrayList<>());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(bootstrap, isolation))) {
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          if (c.position(tp, Duration.ofSeconds(30)) < end.get(tp)) done = false;
        }
        if (done) return out;
        if (System.nanoTime() > deadline) {
          fail("reading " + tps + " (" + isolation + ") did not reach end offsets " + end
              + " within " + timeoutMs + " ms; got " + counts(out));
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
          out.get(new TopicPartition(r.topic(), r.partition())).add(r);
        }
      }
    }
  }

  /**
   * Waits until the read_committed end offsets (last stable offsets) equal the
   * high watermarks of `tps`, i.e. every transaction on them has its marker.
   * Returns the high watermarks.
   */
  static Map<TopicPartition, Long> awaitNoOpenTransactions(String bootstrap, Collection<TopicPartition> tps,
      long timeoutMs) {
    try (KafkaConsumer<byte[], byte[]> rc = new KafkaConsumer<>(consumerProps(bootstrap, "read_committed"));
         KafkaConsumer<byte[], byte[]> ru = new KafkaConsumer<>(consumerProps(bootstrap, "read_uncommitted"))) {
      Map<TopicPartition, Long>[] last = new Map[2];
      waitUntil(timeoutMs, () -> {
        last[0] = rc.endOffsets(tps, Duration.ofSeconds(30));
        last[1] = ru.endOffsets(tps, Duration.ofSeconds(30));
        return last[0].equals(last[1]);
      }, () -> "last stable offsets " + last[0] + " never reached the high watermarks " + last[1]);
      return last[1];
    }
  }

  static Map<TopicPartition, Integer> counts(Map<TopicPartition, ? extends List<?>> m) {
    Map<TopicPartition, Integer> c = new HashMap<>();
    m.forEach((k, v) -> c.put(k, v.size()));
    return c;
  }

  /** Prints a progress line with the wall-clock time (to line up with client and broker logs). */
  static void note(String what) {
    System.out.println("[" + java.time.LocalTime.now() + "] " + what);
  }

  /** A seed from SPOOL_TEST_SEED or the clock, printed so a failure can be replayed. */
  static long seed(String what) {
    String env = System.getenv("SPOOL_TEST_SEED");
    long seed = env != null ? Long.parseLong(env) : System.nanoTime();
    System.out.println("[seed] " + what + ": " + seed + " (replay with SPOOL_TEST_SEED=" + seed + ")");
    return seed;
  }

  /** Polls `cond` every 50 ms until it holds; fails with `what` after `timeoutMs`. */
  static void waitUntil(String what, long timeoutMs, BooleanSupplier cond) {
    waitUntil(timeoutMs, cond, () -> what);
  }

  /** Calls `c`; a checked exception it throws fails the test (for lambdas of waitUntil and the like). */
  static <T> T unchecked(Callable<T> c) {
    try {
      return c.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static void waitUntil(long timeoutMs, BooleanSupplier cond, Supplier<String> what) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) fail("timed out after " + timeoutMs + " ms: " + what.get());
      TestBroker.sleep(50);
    }
  }
}
