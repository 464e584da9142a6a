// Classic consumer group protocol (group.protocol=classic) with the Java
// consumer 4.4: two members of one group on a four-partition topic, a
// rebalance when the second joins and when it leaves, commitSync after every
// poll; every record is consumed exactly once across the group, and after a
// clean broker restart on the same dir and port a new member resumes exactly
// at the committed offsets (nothing re-read, nothing lost).
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ShowBrokerLogOnFailure.class)
class ClassicGroupTest {
  static final int PARTITIONS = 4;
  static final int PHASE_RECORDS = 400;

  TestBroker broker;

  @BeforeAll
  void startBroker() {
    broker = TestBroker.start(Map.of(
        "group.initial.rebalance.delay.ms", "0",
        "offsets.topic.num.partitions", "4"));
  }

  @AfterAll
  void stopBroker() {
    if (broker != null) broker.close();
  }

  /** Expected value per (partition, offset), filled as records are produced. */
  final Map<String, String> produced = new HashMap<>();
  /** Who consumed each (partition, offset): exactly one member. */
  final Map<String, String> consumed = new HashMap<>();
  final List<String> duplicates = new ArrayList<>();
  int phase = 0;

  static String at(int partition, long offset) {
    return partition + "@" + offset;
  }

  void produce(String topic) throws Exception {
    phase++;
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> fs = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 0; i < PHASE_RECORDS; i++) {
        String v = "phase" + phase + "-" + i;
        values.add(v);
        fs.add(p.send(new ProducerRecord<>(topic, i % PARTITIONS, null, v.getBytes(StandardCharsets.UTF_8))));
      }
      p.flush();
      for (int i = 0; i < fs.size(); i++) {
        var md = fs.get(i).get(30, TimeUnit.SECONDS);
        produced.put(at(md.partition(), md.offset()), values.get(i));
      }
    }
  }

  final class Member implements ConsumerRebalanceListener, AutoCloseable {
    final String name;
    final KafkaConsumer<byte[], byte[]> consumer;
    final Set<TopicPartition> assigned = new HashSet<>();
    final List<Set<Integer>> history = new ArrayList<>();
    final Map<Integer, Long> firstOffset = new TreeMap<>();

    Member(String name, String group, String topic) {
      this.name = name;
      var props = Clients.groupConsumerProps(broker.bootstrap(), group, "read_uncommitted");
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
      props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
      consumer = new KafkaConsumer<>(props);
      consumer.subscribe(List.of(topic), this);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> parts) {
      assigned.removeAll(parts);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> parts) {
      assigned.addAll(parts);
      Set<Integer> now = new HashSet<>();
      assigned.forEach(tp -> now.add(tp.partition()));
      if (history.isEmpty() || !history.get(history.size() - 1).equals(now)) history.add(now);
    }

    void pollOnce() {
      var records = consumer.poll(Duration.ofMillis(100));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        String k = at(r.partition(), r.offset());
        firstOffset.putIfAbsent(r.partition(), r.offset());
        String v = new String(r.value(), StandardCharsets.UTF_8);
        if (!v.equals(produced.get(k))) fail(name + " read " + v + " at " + k + ", produced " + produced.get(k));
        String prev = consumed.put(k, name);
        if (prev != null) duplicates.add(k + " by " + prev + " and " + name);
      }
      if (!records.isEmpty()) consumer.commitSync(Duration.ofSeconds(30));
    }

    Set<Integer> partitionsNow() {
      Set<Integer> s = new HashSet<>();
      assigned.forEach(tp -> s.add(tp.partition()));
      return s;
    }

    @Override
    public void close() {
      consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(30)));
    }
  }

  void pollUntil(String what, long timeoutMs, List<Member> members, java.util.function.BooleanSupplier done) {
    Clients.note("group: waiting for " + what);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        StringBuilder sb = new StringBuilder();
        for (Member m : members) sb.append(' ').append(m.name).append('=').append(m.partitionsNow());
        fail("timed out after " + timeoutMs + " ms waiting for " + what + "; consumed " + consumed.size()
            + " of " + produced.size() + ", assignments" + sb + ", duplicates " + duplicates);
      }
      for (Member m : members) m.pollOnce();
    }
    assertEquals(List.of(), duplicates, "records consumed twice");
  }

  Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> m =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, Long> out = new HashMap<>();
    m.forEach((tp, om) -> out.put(tp, om.offset()));
    return out;
  }

  Map<TopicPartition, Long> expectedCommitted(String topic) {
    Map<TopicPartition, Long> out = new HashMap<>();
    for (String k : consumed.keySet()) {
      String[] pe = k.split("@");
      out.merge(new TopicPartition(topic, Integer.parseInt(pe[0])), Long.parseLong(pe[1]) + 1, Math::max);
    }
    return out;
  }

  @Test
  void exactlyOnceAcrossRebalancesAndRestart() throws Exception {
    String topic = Clients.topic("java-group");
    String group = Clients.topic("java-group-g");
    try (Admin admin = Clients.admin(broker.bootstrap())) {
      Clients.createTopic(admin, topic, PARTITIONS, null);
    }
    Set<Integer> all = Set.of(0, 1, 2, 3);

    produce(topic);
    Member a = new Member("a", group, topic);
    pollUntil("a alone consumes phase 1", 30_000, List.of(a),
        () -> a.partitionsNow().equals(all) && consumed.size() == produced.size());

    // b joins: the group rebalances and splits the partitions.
    Member b = new Member("b", group, topic);
    pollUntil("rebalance after b joined", 30_000, List.of(a, b), () -> {
      Set<Integer> pa = a.partitionsNow();
      Set<Integer> pb = b.partitionsNow();
      Set<Integer> union = new HashSet<>(pa);
      union.addAll(pb);
      return !pa.isEmpty() && !pb.isEmpty() && union.equals(all) && pa.size() + pb.size() == PARTITIONS;
    });
    produce(topic);
    pollUntil("a and b consume phase 2", 30_000, List.of(a, b), () -> consumed.size() == produced.size());
    assertTrue(consumed.containsValue("b"), "b consumed nothing in phase 2");
    for (Map.Entry<String, String> e : consumed.entrySet()) {
      int part = Integer.parseInt(e.getKey().split("@")[0]);
      if (e.getValue().equals("b")) assertTrue(b.history.get(0).contains(part), "b read unassigned " + e.getKey());
    }
    // b took over partitions a had read: it must have started at a's commits.
    for (Map.Entry<Integer, Long> e : b.firstOffset.entrySet()) {
      assertEquals((long) PHASE_RECORDS / PARTITIONS, e.getValue(), "b's first offset on partition " + e.getKey());
    }

    // b leaves: a gets everything back and continues from b's commits.
    b.close();
    produce(topic);
    pollUntil("a alone after b left", 30_000, List.of(a),
        () -> a.partitionsNow().equals(all) && consumed.size() == produced.size());
    // Eager range assignment: a had all four, two while b was in, all four again.
    assertEquals(3, a.history.size(), "a's assignments over time: " + a.history);
    assertEquals(all, a.history.get(0), "a's first assignment");
    assertEquals(2, a.history.get(1).size(), "a's assignment while b was in: " + a.history);
    assertEquals(all, a.history.get(2), "a's assignment after b left");
    Set<Integer> rest = new HashSet<>(all);
    rest.removeAll(a.history.get(1));
    assertEquals(List.of(rest), b.history, "b's assignments over time");
    a.close();

    Map<TopicPartition, Long> before;
    try (Admin admin = Clients.admin(broker.bootstrap())) {
      before = committed(admin, group);
    }
    assertEquals(expectedCommitted(topic), before, "committed offsets before the restart");

    Clients.note("group: restarting the broker");
    broker.restart(); // SIGTERM (exit 0 asserted), same dir and port
    Clients.note("group: broker restarted");
    try (Admin admin = Clients.admin(broker.bootstrap())) {
      assertEquals(before, committed(admin, group), "committed offsets after the restart");
    }
    produce(topic);
    Member c = new Member("c", group, topic);
    pollUntil("c after the restart", 60_000, List.of(c),
        () -> c.partitionsNow().equals(all) && consumed.size() == produced.size());
    for (int part = 0; part < PARTITIONS; part++) {
      assertEquals(before.get(new TopicPartition(topic, part)), c.firstOffset.get(part),
          "c's first offset on partition " + part + " (the committed one)");
    }
    c.close();
    assertEquals(produced.keySet(), consumed.keySet(), "every record consumed");
    assertEquals(4 * PHASE_RECORDS, consumed.size());
  }
}
