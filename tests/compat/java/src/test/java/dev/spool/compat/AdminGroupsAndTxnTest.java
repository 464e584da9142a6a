// Java AdminClient 4.4 beyond the basics: createPartitions, describeLogDirs,
// alterConsumerGroupOffsets / deleteConsumerGroupOffsets / deleteConsumerGroups
// on an inactive group, and listTransactions / describeProducers /
// describeTransactions for an open transaction. Exact values.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;

class AdminGroupsAndTxnTest extends BrokerTestBase {
  @Override
  Map<String, String> brokerOverrides() {
    return Map.of("offsets.topic.num.partitions", "4",
        "transaction.state.log.num.partitions", "4");
  }

  int nodeId() throws Exception {
    return get(admin.describeCluster().nodes()).iterator().next().id();
  }

  @Test
  void createPartitionsAndDescribeLogDirs() throws Exception {
    String topic = Clients.topic("java-admin-parts");
    Clients.createTopic(admin, topic, 2, null);
    get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5))).all());
    Clients.awaitTopicReady(admin, topic, 5);
    assertEquals(5, get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic).partitions().size());
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      p.send(new ProducerRecord<>(topic, 4, null, new byte[100])).get(30, TimeUnit.SECONDS);
    }
    int node = nodeId();
    Map<String, LogDirDescription> dirs = get(admin.describeLogDirs(List.of(node)).allDescriptions()).get(node);
    assertFalse(dirs.isEmpty(), "log dirs");
    long size4 = -1;
    int found = 0;
    for (LogDirDescription d : dirs.values()) {
      for (Map.Entry<TopicPartition, ReplicaInfo> e : d.replicaInfos().entrySet()) {
        if (!e.getKey().topic().equals(topic)) continue;
        found++;
        if (e.getKey().partition() == 4) size4 = e.getValue().size();
      }
    }
    assertEquals(5, found, "partitions of " + topic + " in describeLogDirs: " + dirs);
    assertTrue(size4 > 100, "partition 4 holds one 100-byte record batch, size " + size4);
  }

  @Test
  void inactiveGroupOffsetsAlterDeleteAndGroupDelete() throws Exception {
    String topic = Clients.topic("java-admin-alter");
    String group = Clients.topic("java-admin-alter-g");
    Clients.createTopic(admin, topic, 2, null);
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      for (int i = 0; i < 10; i++) p.send(new ProducerRecord<>(topic, i % 2, null, new byte[] {(byte) i}));
      p.flush();
    }
    get(admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(2, "two"),
        p1, new OffsetAndMetadata(4))).all());
    Map<TopicPartition, OffsetAndMetadata> offs =
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    assertEquals(2, offs.get(p0).offset());
    assertEquals("two", offs.get(p0).metadata());
    assertEquals(4, offs.get(p1).offset());
    assertEquals(2, offs.size());

    get(admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all());
    offs = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    assertEquals(Set.of(p1), offs.keySet(), "after deleteConsumerGroupOffsets of " + p0 + ": " + offs);

    get(admin.deleteConsumerGroups(List.of(group)).all());
    ExecutionException again = assertThrows(ExecutionException.class,
        () -> get(admin.deleteConsumerGroups(List.of(group)).all()));
    assertInstanceOf(GroupIdNotFoundException.class, again.getCause());
    offs = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    assertEquals(Map.of(), offs, "offsets of a deleted group");
  }

  /** A transactional producer with one record sent in an open transaction on `tp`. */
  KafkaProducer<byte[], byte[]> openTransaction(String txnId, TopicPartition tp) throws Exception {
    Properties props = Clients.producerProps(broker.bootstrap());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "45000");
    KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props);
    p.initTransactions();
    p.beginTransaction();
    p.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, "open".getBytes(StandardCharsets.UTF_8)))
        .get(30, TimeUnit.SECONDS);
    return p;
  }

  @Test
  void openTransactionIsListedAndItsProducerDescribed() throws Exception {
    String topic = Clients.topic("java-admin-txn");
    String txnId = Clients.topic("java-admin-txn-id");
    Clients.createTopic(admin, topic, 1, null);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaProducer<byte[], byte[]> p = openTransaction(txnId, tp)) {
      TransactionListing listing = get(admin.listTransactions().all()).stream()
          .filter(l -> l.transactionalId().equals(txnId)).findFirst()
          .orElseThrow(() -> new AssertionError(txnId + " not listed"));
      assertEquals(TransactionState.ONGOING, listing.state());

      List<ProducerState> producers = get(admin.describeProducers(List.of(tp)).partitionResult(tp)).activeProducers();
      assertEquals(1, producers.size(), "producers of " + tp + ": " + producers);
      ProducerState ps = producers.get(0);
      assertEquals(listing.producerId(), ps.producerId());
      assertEquals(0, ps.lastSequence());
      assertEquals(java.util.OptionalLong.of(0), ps.currentTransactionStartOffset());
      p.commitTransaction();
    }
    Clients.waitUntil("the committed transaction leaves the ONGOING listing", 10_000,
        () -> Clients.unchecked(() -> get(admin.listTransactions().all()).stream()
            .noneMatch(l -> l.transactionalId().equals(txnId) && l.state() == TransactionState.ONGOING)));
  }

  /**
   * DescribeTransactions v0. Its own admin client: a response the client
   * cannot parse kills the admin client's thread.
   */
  @Test
  void describeTransactions() throws Exception {
    String topic = Clients.topic("java-admin-dtxn");
    String txnId = Clients.topic("java-admin-dtxn-id");
    Clients.createTopic(admin, topic, 1, null);
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin own = Clients.admin(broker.bootstrap());
         KafkaProducer<byte[], byte[]> p = openTransaction(txnId, tp)) {
      TransactionDescription d = get(own.describeTransactions(List.of(txnId)).all()).get(txnId);
      assertEquals(TransactionState.ONGOING, d.state());
      assertEquals(45000, d.transactionTimeoutMs());
      assertEquals(Set.of(tp), d.topicPartitions());
      assertEquals(nodeId(), d.coordinatorId());
      assertEquals(0, d.producerEpoch());
      assertTrue(d.transactionStartTimeMs().isPresent(), "start time of an ongoing transaction");
      p.commitTransaction();
      Clients.waitUntil("transaction shows COMPLETE_COMMIT", 10_000,
          () -> Clients.unchecked(() -> get(own.describeTransactions(List.of(txnId)).all()).get(txnId).state()
              == TransactionState.COMPLETE_COMMIT));
    }
  }
}
