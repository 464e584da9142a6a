// One consumer group member with the Java client 4.4, driven by tests/system/test_cluster_groups.py
// (own JVM: classpath target/classes + target/runtime.classpath). The same events as
// tests/system/group_member.py (librdkafka) and tests/compat/go/groupmember (franz-go):
// it subscribes to TOPIC in GROUP (group.protocol=classic, the default range assignor, auto commit
// off) and loops poll -> report the records -> commitSync of the next offsets; onPartitionsRevoked
// commits what it consumed first. SIGTERM: leave the loop, close (revoke, commit, LeaveGroup),
// exit 0. One JSON line per event on stdout, t = wall-clock seconds:
//   started  assigned {parts}  revoked {parts}  lost {parts}  recs {p,offs}
//   commit {offs,ok,err} (ok false: outcome unknown)  closed  error {err}
// Usage: GroupMember BOOTSTRAP GROUP TOPIC NAME [ASSIGNORS]
// ASSIGNORS: partition.assignment.strategy as Kafka's short names
// (range,roundrobin,sticky,cooperative-sticky); default: the client's.
package dev.spool.compat;

import static dev.spool.compat.JsonLines.emit;
import static dev.spool.compat.JsonLines.now;
import static dev.spool.compat.JsonLines.quote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class GroupMember {
  private static final long PAUSE_MS = 100;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;
  private final Map<Integer, Long> consumed = new HashMap<>(); // partition -> next offset

  private GroupMember(KafkaConsumer<byte[], byte[]> consumer, String topic) {
    this.consumer = consumer;
    this.topic = topic;
  }

  private static String parts(Collection<TopicPartition> tps) {
    List<Integer> ps = new ArrayList<>();
    for (TopicPartition tp : tps) ps.add(tp.partition());
    ps.sort(null);
    return ps.toString();
  }

  /** Commits the next offsets of `ps` that this member consumed, synchronously. */
  private void commit(Collection<Integer> ps) {
    Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
    Map<Integer, Long> shown = new TreeMap<>();
    for (int p : ps) {
      Long next = consumed.get(p);
      if (next == null) continue;
      offs.put(new TopicPartition(topic, p), new OffsetAndMetadata(next));
      shown.put(p, next);
    }
    if (offs.isEmpty()) return;
    StringBuilder json = new StringBuilder("{");
    shown.forEach((p, o) -> json.append(json.length() > 1 ? "," : "").append('"').append(p).append("\":").append(o));
    json.append('}');
    try {
      consumer.commitSync(offs, Duration.ofSeconds(15));
      emit("{\"ev\":\"commit\",\"offs\":" + json + ",\"ok\":true,\"err\":null,\"t\":" + now() + "}");
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      emit("{\"ev\":\"commit\",\"offs\":" + json + ",\"ok\":false,\"err\":" + quote(e.toString())
          + ",\"t\":" + now() + "}");
    }
  }

  private final ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> tps) {
      emit("{\"ev\":\"assigned\",\"parts\":" + parts(tps) + ",\"t\":" + now() + "}");
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> tps) {
      List<Integer> ps = new ArrayList<>();
      for (TopicPartition tp : tps) ps.add(tp.partition());
      commit(ps);
      for (int p : ps) consumed.remove(p);
      emit("{\"ev\":\"revoked\",\"parts\":" + parts(tps) + ",\"t\":" + now() + "}");
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> tps) {
      for (TopicPartition tp : tps) consumed.remove(tp.partition());
      emit("{\"ev\":\"lost\",\"parts\":" + parts(tps) + ",\"t\":" + now() + "}");
    }
  };

  private void run(AtomicBoolean stop) {
    consumer.subscribe(List.of(topic), listener);
    emit("{\"ev\":\"started\",\"t\":" + now() + "}");
    while (!stop.get()) {
      ConsumerRecords<byte[], byte[]> recs;
      try {
        recs = consumer.poll(Duration.ofMillis(200));
      } catch (WakeupException e) {
        break;
      }
      if (recs.isEmpty()) continue;
      List<Integer> ps = new ArrayList<>();
      for (TopicPartition tp : recs.partitions()) {
        StringBuilder offs = new StringBuilder();
        long last = -1;
        for (ConsumerRecord<byte[], byte[]> r : recs.records(tp)) {
          offs.append(offs.length() > 0 ? "," : "").append(r.offset());
          last = r.offset();
        }
        emit("{\"ev\":\"recs\",\"p\":" + tp.partition() + ",\"offs\":[" + offs + "],\"t\":" + now() + "}");
        consumed.put(tp.partition(), last + 1);
        ps.add(tp.partition());
      }
      try {
        commit(ps);
        Thread.sleep(PAUSE_MS); // "processing": keeps the commit rate near the other members'
      } catch (WakeupException e) {
        break;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  /** "range,cooperative-sticky" -> the assignors' class names. */
  private static List<String> assignorClasses(String names) {
    Map<String, String> known = Map.of(
        "range", RangeAssignor.class.getName(),
        "roundrobin", RoundRobinAssignor.class.getName(),
        "sticky", StickyAssignor.class.getName(),
        "cooperative-sticky", CooperativeStickyAssignor.class.getName());
    List<String> out = new ArrayList<>();
    for (String n : names.split(",")) {
      String c = known.get(n.trim());
      if (c == null) throw new IllegalArgumentException("unknown assignor " + n);
      out.add(c);
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4 && args.length != 5) {
      throw new IllegalArgumentException("usage: GroupMember BOOTSTRAP GROUP TOPIC NAME [ASSIGNORS]");
    }
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    cp.put(ConsumerConfig.CLIENT_ID_CONFIG, args[3]);
    cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
    cp.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20");
    cp.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    cp.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    cp.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    cp.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    if (args.length == 5) cp.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignorClasses(args[4]));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger exitCode = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.set(true);
      consumer.wakeup();
      try {
        done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Runtime.getRuntime().halt(exitCode.get()); // a SIGTERM'd JVM would exit 143 after the hooks
    }));
    try {
      new GroupMember(consumer, args[2]).run(stop);
      consumer.close(Duration.ofSeconds(20));
      emit("{\"ev\":\"closed\",\"t\":" + now() + "}");
    } catch (KafkaException e) {
      emit("{\"ev\":\"error\",\"err\":" + quote(e.toString()) + ",\"t\":" + now() + "}");
      exitCode.set(3);
      done.countDown();
      Runtime.getRuntime().halt(3);
    } finally {
      done.countDown();
    }
  }
}
