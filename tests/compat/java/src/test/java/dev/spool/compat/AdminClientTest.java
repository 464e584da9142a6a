// Java AdminClient 4.4: describeCluster; create (and create-again), list,
// describe and delete topics; describeConfigs and incrementalAlterConfigs on
// a topic; listOffsets earliest, latest, forTimestamp and maxTimestamp;
// listConsumerGroups, describeConsumerGroups and listConsumerGroupOffsets for
// an active and then an empty classic group; deleteRecords. Exact values.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

class AdminClientTest extends BrokerTestBase {
  @Override
  Map<String, String> brokerOverrides() {
    return Map.of("group.initial.rebalance.delay.ms", "0",
        "offsets.topic.num.partitions", "4");
  }

  Node onlyNode() throws Exception {
    Collection<Node> nodes = get(admin.describeCluster().nodes());
    assertEquals(1, nodes.size(), "nodes: " + nodes);
    return nodes.iterator().next();
  }

  @Test
  void describeCluster() throws Exception {
    DescribeClusterResult r = admin.describeCluster();
    Node node = onlyNode();
    assertEquals("127.0.0.1", node.host());
    assertEquals(broker.port(), node.port());
    String clusterId = get(r.clusterId());
    assertNotNull(clusterId);
    assertFalse(clusterId.isEmpty(), "cluster id");
    // A second call answers the same cluster id.
    assertEquals(clusterId, get(admin.describeCluster().clusterId()));
    Node controller = get(r.controller());
    assertNotNull(controller, "controller");
    assertEquals(node.id(), controller.id(), "a single node is its own controller");
  }

  @Test
  void topicsLifecycleAndConfigs() throws Exception {
    Node node = onlyNode();
    String t1 = Clients.topic("java-admin-a");
    String t2 = Clients.topic("java-admin-b");
    get(admin.createTopics(List.of(
        new NewTopic(t1, 3, (short) 1).configs(Map.of("retention.ms", "3600000", "cleanup.policy", "delete")),
        new NewTopic(t2, 1, (short) 1))).all());
    Clients.awaitTopicReady(admin, t1, 3);
    Clients.awaitTopicReady(admin, t2, 1);
    ExecutionException again = assertThrows(ExecutionException.class,
        () -> get(admin.createTopics(List.of(new NewTopic(t1, 3, (short) 1))).all()));
    assertInstanceOf(TopicExistsException.class, again.getCause());

    Set<String> names = get(admin.listTopics().names());
    assertTrue(names.containsAll(Set.of(t1, t2)), "listTopics: " + names);

    TopicDescription d = get(admin.describeTopics(List.of(t1)).allTopicNames()).get(t1);
    assertEquals(t1, d.name());
    assertFalse(d.isInternal());
    assertEquals(List.of(0, 1, 2), d.partitions().stream().map(TopicPartitionInfo::partition).toList());
    for (TopicPartitionInfo p : d.partitions()) {
      assertEquals(node.id(), p.leader().id(), "leader of partition " + p.partition());
      assertEquals(List.of(node.id()), p.replicas().stream().map(Node::id).toList());
      assertEquals(List.of(node.id()), p.isr().stream().map(Node::id).toList());
    }

    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, t1);
    Config cfg = get(admin.describeConfigs(List.of(res)).all()).get(res);
    assertEquals("3600000", cfg.get("retention.ms").value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("retention.ms").source());
    assertEquals("delete", cfg.get("cleanup.policy").value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("cleanup.policy").source());
    assertNotNull(cfg.get("segment.bytes"), "describeConfigs lists segment.bytes too");
    assertNotEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("segment.bytes").source());

    get(admin.incrementalAlterConfigs(Map.of(res, List.of(
        new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET),
        new AlterConfigOp(new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET),
        new AlterConfigOp(new ConfigEntry("cleanup.policy", ""), AlterConfigOp.OpType.DELETE)))).all());
    cfg = get(admin.describeConfigs(List.of(res)).all()).get(res);
    assertEquals("7200000", cfg.get("retention.ms").value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("retention.ms").source());
    assertEquals("2000000", cfg.get("max.message.bytes").value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("max.message.bytes").source());
    assertEquals("delete", cfg.get("cleanup.policy").value(), "cleanup.policy back to its default");
    assertNotEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, cfg.get("cleanup.policy").source());

    get(admin.deleteTopics(List.of(t2)).all());
    Clients.waitUntil("deleted topic leaves listTopics", 30_000,
        () -> Clients.unchecked(() -> !get(admin.listTopics().names()).contains(t2)));
    ExecutionException gone = assertThrows(ExecutionException.class,
        () -> get(admin.describeTopics(List.of(t2)).allTopicNames()));
    assertInstanceOf(UnknownTopicOrPartitionException.class, gone.getCause());
    assertTrue(get(admin.listTopics().names()).contains(t1));
  }

  /** Ten records on partition 0; timestamps base+10*i, except offset 6 at base+1000. */
  static final int RECORDS = 10;

  long produceTimed(String topic, long base) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      for (int i = 0; i < RECORDS; i++) {
        long ts = i == 6 ? base + 1000 : base + 10L * i;
        var md = p.send(new ProducerRecord<>(topic, 0, ts, null, ("r" + i).getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
        assertEquals(i, md.offset());
      }
    }
    return base;
  }

  ListOffsetsResultInfo offsetOf(TopicPartition tp, OffsetSpec spec) throws Exception {
    return get(admin.listOffsets(Map.of(tp, spec)).partitionResult(tp));
  }

  @Test
  void listOffsetsAndDeleteRecords() throws Exception {
    String topic = Clients.topic("java-admin-offsets");
    Clients.createTopic(admin, topic, 1, null);
    TopicPartition tp = new TopicPartition(topic, 0);
    assertEquals(0, offsetOf(tp, OffsetSpec.earliest()).offset(), "earliest of an empty partition");
    assertEquals(0, offsetOf(tp, OffsetSpec.latest()).offset(), "latest of an empty partition");
    long base = produceTimed(topic, System.currentTimeMillis() - 600_000);

    assertEquals(0, offsetOf(tp, OffsetSpec.earliest()).offset());
    assertEquals(RECORDS, offsetOf(tp, OffsetSpec.latest()).offset());
    ListOffsetsResultInfo at25 = offsetOf(tp, OffsetSpec.forTimestamp(base + 25));
    assertEquals(3, at25.offset(), "first offset with timestamp >= base+25");
    assertEquals(base + 30, at25.timestamp());
    assertEquals(6, offsetOf(tp, OffsetSpec.forTimestamp(base + 95)).offset(), "first >= base+95 is the max one");
    assertEquals(-1, offsetOf(tp, OffsetSpec.forTimestamp(base + 5000)).offset(), "no timestamp that late");

    var low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp);
    assertEquals(4, get(low).lowWatermark());
    assertEquals(4, offsetOf(tp, OffsetSpec.earliest()).offset(), "earliest after deleteRecords");
    assertEquals(RECORDS, offsetOf(tp, OffsetSpec.latest()).offset());
    var got = Clients.readToEnd(broker.bootstrap(), List.of(tp), "read_uncommitted", 30_000).get(tp);
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), got.stream().map(ConsumerRecord::offset).toList());
    assertEquals("r4", new String(got.get(0).value(), StandardCharsets.UTF_8));
  }

  /** ListOffsets with OffsetSpec.maxTimestamp() (KIP-734, ListOffsets v7). */
  @Test
  void listOffsetsMaxTimestamp() throws Exception {
    String topic = Clients.topic("java-admin-maxts");
    Clients.createTopic(admin, topic, 1, null);
    TopicPartition tp = new TopicPartition(topic, 0);
    long base = produceTimed(topic, System.currentTimeMillis() - 600_000);
    ListOffsetsResultInfo max = offsetOf(tp, OffsetSpec.maxTimestamp());
    assertEquals(6, max.offset(), "offset of the largest timestamp");
    assertEquals(base + 1000, max.timestamp());
  }

  @Test
  @SuppressWarnings("deprecation") // listConsumerGroups: still served in 4.4, listGroups is its successor
  void consumerGroups() throws Exception {
    String topic = Clients.topic("java-admin-group");
    String group = Clients.topic("java-admin-g");
    Clients.createTopic(admin, topic, 3, null);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()))) {
      for (int i = 0; i < 30; i++) p.send(new ProducerRecord<>(topic, i % 3, null, new byte[] {(byte) i}));
      p.flush();
    }
    var props = Clients.groupConsumerProps(broker.bootstrap(), group, "read_uncommitted");
    props.put("client.id", "admin-test-member");
    Map<TopicPartition, Long> expected = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props)) {
      c.subscribe(List.of(topic));
      int[] n = {0};
      Clients.waitUntil("member consumes 30 records", 30_000, () -> {
        n[0] += c.poll(Clients.POLL).count();
        return n[0] >= 30;
      });
      assertEquals(30, n[0]);
      // Commit 3, 5 and 7 (not the positions) so the listed offsets are ours.
      for (int part = 0; part < 3; part++) expected.put(new TopicPartition(topic, part), 3L + 2 * part);
      c.commitSync(expected.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
          e -> new OffsetAndMetadata(e.getValue(), "m" + e.getKey().partition()))));

      Collection<ConsumerGroupListing> listed = get(admin.listConsumerGroups().all());
      ConsumerGroupListing mine = listed.stream().filter(l -> l.groupId().equals(group)).findFirst()
          .orElseThrow(() -> new AssertionError(group + " not in listConsumerGroups: " + listed));
      assertFalse(mine.isSimpleConsumerGroup());
      assertEquals(java.util.Optional.of(GroupState.STABLE), mine.groupState());

      ConsumerGroupDescription desc = get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
      assertEquals(group, desc.groupId());
      assertEquals(GroupState.STABLE, desc.groupState());
      assertEquals(GroupType.CLASSIC, desc.type());
      assertEquals("range", desc.partitionAssignor());
      assertEquals(onlyNode().id(), desc.coordinator().id());
      assertEquals(1, desc.members().size(), "members: " + desc.members());
      MemberDescription m = desc.members().iterator().next();
      assertEquals("admin-test-member", m.clientId());
      assertEquals(Set.copyOf(Clients.partitions(topic, 3)), m.assignment().topicPartitions());

      Map<TopicPartition, OffsetAndMetadata> offs =
          get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
      assertEquals(expected.keySet(), offs.keySet());
      for (var e : expected.entrySet()) {
        assertEquals(e.getValue(), offs.get(e.getKey()).offset(), "committed offset of " + e.getKey());
        assertEquals("m" + e.getKey().partition(), offs.get(e.getKey()).metadata());
      }
    }
    // The member left: the group is empty and keeps its offsets.
    ConsumerGroupDescription empty = get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
    assertEquals(GroupState.EMPTY, empty.groupState());
    assertEquals(0, empty.members().size());
    Map<TopicPartition, OffsetAndMetadata> after =
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    assertEquals(expected, after.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset())));
    var groups = get(admin.listGroups().all());
    assertTrue(groups.stream().anyMatch(g -> g.groupId().equals(group)), "listGroups: " + groups);
  }
}
