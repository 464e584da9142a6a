// Java transactional producer 4.4: initTransactions, commit and abort with
// exact offsets (each transaction marker takes one); read_committed sees only
// committed records and stops at an open transaction (the last stable
// offset), read_uncommitted sees everything; consume-transform-produce with
// sendOffsetsToTransaction commits the group's offsets atomically with the
// output (an aborted batch moves neither, pending offsets stay invisible); a
// second producer with the same transactional.id fences the first, whose open
// transaction is aborted.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

class TransactionsTest extends BrokerTestBase {
  @Override
  Map<String, String> brokerOverrides() {
    return Map.of(
        "group.initial.rebalance.delay.ms", "0",
        "offsets.topic.num.partitions", "4",
        "transaction.state.log.num.partitions", "4");
  }

  KafkaProducer<byte[], byte[]> txnProducer(String txnId) {
    Properties p = Clients.producerProps(broker.bootstrap());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
    producer.initTransactions();
    return producer;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** "offset:value" of every record read from `tp` to the end for `isolation`. */
  List<String> read(TopicPartition tp, String isolation) {
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : Clients.readToEnd(broker.bootstrap(), List.of(tp), isolation, 30_000).get(tp)) {
      out.add(r.offset() + ":" + str(r.value()));
    }
    return out;
  }

  static void sendBatch(KafkaProducer<byte[], byte[]> p, String topic, String tag) {
    for (int part = 0; part < 2; part++) {
      for (int i = 0; i < 5; i++) {
        p.send(new ProducerRecord<>(topic, part, null, utf8(tag + "-" + part + "-" + i)));
      }
    }
  }

  static List<String> expected(int part, long firstOffset, String tag) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 5; i++) out.add((firstOffset + i) + ":" + tag + "-" + part + "-" + i);
    return out;
  }

  Map<TopicPartition, Long> endOffsets(TopicPartition tp, String isolation) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Clients.consumerProps(broker.bootstrap(), isolation))) {
      return c.endOffsets(List.of(tp), Duration.ofSeconds(30));
    }
  }

  /**
   * EndTxn is answered before the markers land (in Kafka too), so the last
   * stable offset reaches `lso` a moment after commit/abort returns.
   */
  void awaitLso(TopicPartition tp, long lso) {
    Clients.waitUntil(10_000, () -> endOffsets(tp, "read_committed").get(tp) == lso,
        () -> "read_committed end offset of " + tp + " is " + endOffsets(tp, "read_committed") + ", not " + lso);
  }

  @Test
  void commitAbortAndIsolationLevels() throws Exception {
    String topic = Clients.topic("java-txn");
    Clients.createTopic(admin, topic, 2, null);
    try (KafkaProducer<byte[], byte[]> p = txnProducer(Clients.topic("java-txn-id"))) {
      p.beginTransaction();
      sendBatch(p, topic, "c1");
      p.commitTransaction();
      p.beginTransaction();
      sendBatch(p, topic, "a2");
      p.flush();
      p.abortTransaction();
      p.beginTransaction();
      sendBatch(p, topic, "c3");
      p.commitTransaction();

      // Per partition: c1 at 0-4, marker 5, a2 at 6-10, marker 11, c3 at 12-16, marker 17.
      for (int part = 0; part < 2; part++) {
        TopicPartition tp = new TopicPartition(topic, part);
        awaitLso(tp, 18);
        List<String> committed = new ArrayList<>(expected(part, 0, "c1"));
        committed.addAll(expected(part, 12, "c3"));
        List<String> all = new ArrayList<>(expected(part, 0, "c1"));
        all.addAll(expected(part, 6, "a2"));
        all.addAll(expected(part, 12, "c3"));
        assertEquals(committed, read(tp, "read_committed"), "read_committed of partition " + part);
        assertEquals(all, read(tp, "read_uncommitted"), "read_uncommitted of partition " + part);
        assertEquals(Map.of(tp, 18L), endOffsets(tp, "read_committed"));
        assertEquals(Map.of(tp, 18L), endOffsets(tp, "read_uncommitted"));
      }

      // An open transaction: read_committed stops before it (LSO 18).
      p.beginTransaction();
      sendBatch(p, topic, "o4");
      p.flush();
      for (int part = 0; part < 2; part++) {
        TopicPartition tp = new TopicPartition(topic, part);
        assertEquals(Map.of(tp, 18L), endOffsets(tp, "read_committed"), "LSO while open, partition " + part);
        assertEquals(Map.of(tp, 23L), endOffsets(tp, "read_uncommitted"), "HW while open, partition " + part);
        List<String> committed = new ArrayList<>(expected(part, 0, "c1"));
        committed.addAll(expected(part, 12, "c3"));
        assertEquals(committed, read(tp, "read_committed"), "read_committed while open, partition " + part);
        List<String> all = read(tp, "read_uncommitted");
        assertEquals(expected(part, 18, "o4"), all.subList(15, all.size()), "open txn in read_uncommitted");
      }
      p.commitTransaction();
      for (int part = 0; part < 2; part++) {
        TopicPartition tp = new TopicPartition(topic, part);
        awaitLso(tp, 24);
        List<String> committed = new ArrayList<>(expected(part, 0, "c1"));
        committed.addAll(expected(part, 12, "c3"));
        committed.addAll(expected(part, 18, "o4"));
        assertEquals(committed, read(tp, "read_committed"), "read_committed after commit, partition " + part);
        assertEquals(Map.of(tp, 24L), endOffsets(tp, "read_committed"));
      }
    }
  }

  /** The group's committed offsets; requireStable waits out offsets whose commit marker is pending. */
  Map<TopicPartition, Long> groupOffsets(String group, boolean requireStable) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group,
            new ListConsumerGroupOffsetsOptions().requireStable(requireStable))
        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    Map<TopicPartition, Long> out = new HashMap<>();
    m.forEach((tp, om) -> {
      if (om != null) out.put(tp, om.offset());
    });
    return out;
  }

  Map<TopicPartition, Long> groupOffsetsUnchecked(String group) {
    return Clients.unchecked(() -> groupOffsets(group, true));
  }

  @Test
  void consumeTransformProduceCommitsOffsetsAtomically() throws Exception {
    String in = Clients.topic("java-ctp-in");
    String out = Clients.topic("java-ctp-out");
    String group = Clients.topic("java-ctp-g");
    Clients.createTopic(admin, in, 2, null);
    Clients.createTopic(admin, out, 2, null);
    final int perPartition = 100;
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      for (int i = 0; i < 2 * perPartition; i++) p.send(new ProducerRecord<>(in, i % 2, null, utf8("w" + i)));
      p.flush();
    }

    Properties cp = Clients.groupConsumerProps(broker.bootstrap(), group, "read_committed");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "25");
    Map<TopicPartition, Long> committed = new HashMap<>();
    int batches = 0;
    int abortedRecords = 0;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp);
         KafkaProducer<byte[], byte[]> p = txnProducer(Clients.topic("java-ctp-id"))) {
      c.subscribe(List.of(in));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!committed.equals(Map.of(new TopicPartition(in, 0), (long) perPartition,
          new TopicPartition(in, 1), (long) perPartition))) {
        assertTrue(System.nanoTime() < deadline, "consume-transform-produce did not finish; committed " + committed);
        ConsumerRecords<byte[], byte[]> recs = c.poll(Clients.POLL);
        if (recs.isEmpty()) continue;
        batches++;
        p.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        Map<TopicPartition, Long> first = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : recs) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          p.send(new ProducerRecord<>(out, r.partition(), null, utf8("T(" + str(r.value()) + ")")));
          next.put(tp, new OffsetAndMetadata(r.offset() + 1));
          first.putIfAbsent(tp, r.offset());
        }
        p.sendOffsetsToTransaction(next, c.groupMetadata());
        // Until the commit, the group's committed offsets stay what they were.
        assertEquals(committed, groupOffsets(group, false), "offsets visible before the transaction committed");
        if (batches == 1) {
          p.abortTransaction();
          abortedRecords = recs.count();
          assertEquals(Map.of(), groupOffsets(group, false), "an aborted transaction committed offsets");
          first.forEach(c::seek); // reprocess the aborted batch
          continue;
        }
        p.commitTransaction();
        next.forEach((tp, om) -> committed.put(tp, om.offset()));
        // The commit marker lands just after EndTxn returns; until then the
        // admin client leaves the unstable partitions out of its answer.
        Clients.waitUntil(10_000, () -> committed.equals(groupOffsetsUnchecked(group)),
            () -> "offsets after the commit: " + groupOffsetsUnchecked(group) + ", want " + committed);
      }
    }
    assertTrue(abortedRecords > 0);
    for (int part = 0; part < 2; part++) {
      TopicPartition tp = new TopicPartition(out, part);
      awaitLso(tp, endOffsets(tp, "read_uncommitted").get(tp));
    }
    for (int part = 0; part < 2; part++) {
      List<String> want = new ArrayList<>();
      for (int i = part; i < 2 * perPartition; i += 2) want.add("T(w" + i + ")");
      TopicPartition tp = new TopicPartition(out, part);
      List<String> got = new ArrayList<>();
      for (String s : read(tp, "read_committed")) got.add(s.substring(s.indexOf(':') + 1));
      assertEquals(want, got, "committed output of partition " + part);
    }
    int uncommitted = 0;
    for (int part = 0; part < 2; part++) uncommitted += read(new TopicPartition(out, part), "read_uncommitted").size();
    assertEquals(2 * perPartition + abortedRecords, uncommitted, "read_uncommitted also sees the aborted batch");
  }

  @Test
  void sameTransactionalIdFencesTheOldProducer() throws Exception {
    String topic = Clients.topic("java-fence");
    String txnId = Clients.topic("java-fence-id");
    Clients.createTopic(admin, topic, 1, null);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaProducer<byte[], byte[]> old = txnProducer(txnId)) {
      old.beginTransaction();
      old.send(new ProducerRecord<>(topic, 0, null, utf8("zombie"))).get(30, TimeUnit.SECONDS);
      try (KafkaProducer<byte[], byte[]> fresh = txnProducer(txnId)) { // aborts the open transaction
        fresh.beginTransaction();
        fresh.send(new ProducerRecord<>(topic, 0, null, utf8("fresh")));
        fresh.commitTransaction();
      }
      KafkaException e = assertThrows(KafkaException.class, old::commitTransaction);
      assertTrue(e instanceof ProducerFencedException || e.getCause() instanceof ProducerFencedException,
          "old producer's commit: " + e);
    }
    // zombie at 0, abort marker 1, fresh at 2, commit marker 3.
    awaitLso(tp, 4);
    assertEquals(List.of("2:fresh"), read(tp, "read_committed"));
    assertEquals(List.of("0:zombie", "2:fresh"), read(tp, "read_uncommitted"));
  }
}
