// The Java client's consumer-protocol encodings (ConsumerProtocol's
// Subscription and Assignment at versions 0-3, the StickyAssignor and
// CooperativeStickyAssignor user data) checked against the golden bytes in
// tests/unit/client/data/consumer_protocol_golden.txt, which the C++ test
// tests/unit/client/assignor_protocol_test.cc checks Spool's encoder and
// decoder against. Each case below builds the same values as the C++ test.
// No broker.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerProtocolReferenceTest {
  static final String GOLDEN = "tests/unit/client/data/consumer_protocol_golden.txt";

  static Path repoRoot() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(GOLDEN))) {
        return d;
      }
    }
    throw new IllegalStateException(GOLDEN + " not found above " + Path.of("").toAbsolutePath());
  }

  static Map<String, String> golden() throws IOException {
    Map<String, String> cases = new HashMap<>();
    for (String line : Files.readAllLines(repoRoot().resolve(GOLDEN))) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.trim().split(" ");
      cases.put(parts[0], parts[1]);
    }
    return cases;
  }

  static String hex(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  static ByteBuffer bytes(String hex) {
    return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
  }

  static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  // Topics and owned partitions out of order: the encoder sorts them.
  static Subscription fullSubscription() {
    return new Subscription(List.of("topic-b", "topic-a"), bytes("010203"),
        List.of(tp("t1", 2), tp("t1", 0), tp("t0", 1)), 7, Optional.of("rack-a"));
  }

  static Assignment fullAssignment() {
    return new Assignment(List.of(tp("t1", 0), tp("t0", 1), tp("t1", 2)), bytes("cafe"));
  }

  @Test
  void subscriptionsMatchGoldenBytes() throws IOException {
    Map<String, String> g = golden();
    for (short v = 0; v <= 3; v++) {
      assertEquals(g.get("subscription_v" + v),
          hex(ConsumerProtocol.serializeSubscription(fullSubscription(), v)), "version " + v);
    }
    Subscription empty = new Subscription(List.of("t1"), ByteBuffer.allocate(0), List.of(), -1, Optional.empty());
    assertEquals(g.get("subscription_v3_empty"), hex(ConsumerProtocol.serializeSubscription(empty, (short) 3)));
    Subscription nullUserData = new Subscription(List.of("t1"), null, List.of());
    assertEquals(g.get("subscription_v1_null_user_data"),
        hex(ConsumerProtocol.serializeSubscription(nullUserData, (short) 1)));
  }

  @Test
  void newerSubscriptionVersionIsReadAsTheNewestKnown() throws IOException {
    Subscription s = ConsumerProtocol.deserializeSubscription(bytes(golden().get("subscription_v4_future")));
    assertEquals(List.of("topic-a", "topic-b"), s.topics());
    assertEquals("010203", hex(s.userData()));
    assertEquals(List.of(tp("t0", 1), tp("t1", 0), tp("t1", 2)), s.ownedPartitions());
    assertEquals(Optional.of(7), s.generationId());
    assertEquals(Optional.of("rack-a"), s.rackId());
  }

  @Test
  void assignmentsMatchGoldenBytes() throws IOException {
    Map<String, String> g = golden();
    for (short v = 0; v <= 3; v++) {
      assertEquals(g.get("assignment_v" + v),
          hex(ConsumerProtocol.serializeAssignment(fullAssignment(), v)), "version " + v);
    }
    assertEquals(g.get("assignment_v0_null_user_data"),
        hex(ConsumerProtocol.serializeAssignment(new Assignment(List.of(), null), (short) 0)));
    Assignment decoded = ConsumerProtocol.deserializeAssignment(bytes(g.get("assignment_v3")));
    assertEquals(List.of(tp("t1", 0), tp("t1", 2), tp("t0", 1)), decoded.partitions());
  }

  @Test
  @SuppressWarnings("removal") // ConsumerGroupMetadata's constructor is the way to hand an assignor its generation
  void stickyUserDataMatchesGoldenBytes() throws IOException {
    StickyAssignor sticky = new StickyAssignor();
    sticky.onAssignment(new Assignment(List.of(tp("t0", 0), tp("t0", 2), tp("t1", 1))),
        new ConsumerGroupMetadata("group", 5, "member", Optional.empty()));
    ByteBuffer userData = sticky.subscriptionUserData(Set.of("t0", "t1"));
    assertTrue(userData != null);
    assertEquals(golden().get("sticky_user_data_v1"), hex(userData));
  }

  @Test
  @SuppressWarnings("removal")
  void cooperativeStickyUserDataMatchesGoldenBytes() throws IOException {
    CooperativeStickyAssignor cooperative = new CooperativeStickyAssignor();
    cooperative.onAssignment(new Assignment(List.of()),
        new ConsumerGroupMetadata("group", 9, "member", Optional.empty()));
    assertEquals(golden().get("cooperative_sticky_user_data"), hex(cooperative.subscriptionUserData(Set.of("t0"))));
  }
}
