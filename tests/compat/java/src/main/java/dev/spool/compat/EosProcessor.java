// Exactly-once consume -> transform -> produce with the Java client 4.4, run as its own JVM by
// tests/system/test_cluster_txn.py (classpath target/classes + target/runtime.classpath). The
// same processor as the librdkafka one in tests/compat/test_eos_pipeline.py (_process_main) and
// tests/compat/go/eosproc (franz-go), with the same spec and events.
//
// A transactional KafkaProducer is initialised (initTransactions: fences an earlier incarnation
// with the same transactional.id and resolves its open transaction) before a classic-protocol
// KafkaConsumer (read_committed, auto commit off, earliest) subscribes to SRC. Per polled batch
// (at most `batch` records): beginTransaction, one record "out:" + value to the same partition
// of DST per input, flush, emit produced, sleep pause_s, sendOffsetsToTransaction(next offsets,
// consumer.groupMetadata()), commitTransaction, emit committed.
//
// One JSON line per event on stdout (key "event"):
//   started  produced {n}  committed {n, offsets: {"partition": next offset}}  error {error}  closed
// Exit codes: 0 after SIGTERM (the open transaction is finished, the consumer closed, "closed"
// printed); 3 after an "error" line (any client exception: the test starts a successor with the
// same transactional.id); 2 on a bad argument.
// Usage: EosProcessor SPEC, SPEC = {"bootstrap","group","src","dst","txn_id","batch","pause_s",
// "name"} as one JSON object (flat: strings and numbers only).
package dev.spool.compat;

import static dev.spool.compat.JsonLines.emit;
import static dev.spool.compat.JsonLines.quote;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class EosProcessor {
  private EosProcessor() {}

  private static final byte[] OUT_PREFIX = "out:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private static volatile boolean stop;
  private static volatile int exitCode = 3;

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: EosProcessor SPEC_JSON");
      System.exit(2);
    }
    Map<String, String> spec = parseFlatObject(args[0]);
    String bootstrap = spec.get("bootstrap");
    String src = spec.get("src");
    String dst = spec.get("dst");
    String name = spec.getOrDefault("name", "eos-java");
    int batch = Integer.parseInt(spec.get("batch"));
    long pauseMs = Math.round(Double.parseDouble(spec.get("pause_s")) * 1000.0);

    // SIGTERM: let the main thread finish its transaction and close, then exit with its code
    // (a JVM ended by SIGTERM would otherwise exit 143).
    Thread mainThread = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop = true;
      try {
        mainThread.join(120_000);
      } catch (InterruptedException ignored) {
        // halt below
      }
      Runtime.getRuntime().halt(exitCode);
    }));

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, spec.get("txn_id"));
    pp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    pp.put(ProducerConfig.CLIENT_ID_CONFIG, name);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, spec.get("group"));
    cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, String.valueOf(batch));
    cp.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

    KafkaProducer<byte[], byte[]> producer = null;
    KafkaConsumer<byte[], byte[]> consumer = null;
    try {
      producer = new KafkaProducer<>(pp);
      // Before joining the group: fencing the previous incarnation aborts its pending
      // offsets, so the offsets fetched on assignment are stable.
      producer.initTransactions();
      consumer = new KafkaConsumer<>(cp);
      consumer.subscribe(java.util.List.of(src));
      emit("{\"event\":\"started\"}");
      while (!stop) {
        ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(500));
        if (recs.isEmpty()) continue;
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        TreeMap<Integer, Long> next = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : recs) {
          producer.send(new ProducerRecord<>(dst, r.partition(), r.key(), concat(OUT_PREFIX, r.value())));
          offsets.put(new TopicPartition(src, r.partition()), new OffsetAndMetadata(r.offset() + 1));
          next.put(r.partition(), r.offset() + 1);
        }
        producer.flush();
        emit("{\"event\":\"produced\",\"n\":" + recs.count() + "}");
        Thread.sleep(pauseMs);
        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        producer.commitTransaction();
        StringBuilder o = new StringBuilder("{");
        for (Map.Entry<Integer, Long> e : next.entrySet()) {
          if (o.length() > 1) o.append(',');
          o.append('"').append(e.getKey()).append("\":").append(e.getValue());
        }
        emit("{\"event\":\"committed\",\"n\":" + recs.count() + ",\"offsets\":" + o.append('}') + "}");
      }
      consumer.close();
      producer.close();
      emit("{\"event\":\"closed\"}");
      exitCode = 0;
    } catch (Exception e) {
      emit("{\"event\":\"error\",\"error\":" + quote(e.toString()) + "}");
      // No close (as the librdkafka processor): the successor fences this producer and the
      // group drops this member after its session timeout. halt, not exit: a SIGTERM hook
      // may be waiting for this thread.
      Runtime.getRuntime().halt(3);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + (b == null ? 0 : b.length)];
    System.arraycopy(a, 0, out, 0, a.length);
    if (b != null) System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * A flat JSON object (string, number, true/false/null values; no nesting) as key -> text
   * (numbers as written). Throws IllegalArgumentException on anything else: the pom has no JSON
   * library and the spec needs none.
   */
  static Map<String, String> parseFlatObject(String s) {
    Map<String, String> out = new HashMap<>();
    int[] i = {skipWs(s, 0)};
    expect(s, i, '{');
    if (peek(s, i) == '}') return out;
    while (true) {
      String key = readString(s, i);
      expect(s, i, ':');
      String value;
      if (peek(s, i) == '"') {
        value = readString(s, i);
      } else {
        int start = i[0];
        while (i[0] < s.length() && ",} \t\r\n".indexOf(s.charAt(i[0])) < 0) i[0]++;
        value = s.substring(start, i[0]);
        if (value.isEmpty() || value.startsWith("{") || value.startsWith("[")) {
          throw new IllegalArgumentException("unsupported value for " + key + " in " + s);
        }
      }
      out.put(key, value);
      char c = peek(s, i);
      i[0]++;
      if (c == '}') return out;
      if (c != ',') throw new IllegalArgumentException("expected , or } at " + (i[0] - 1) + " in " + s);
    }
  }

  private static int skipWs(String s, int i) {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    return i;
  }

  private static char peek(String s, int[] i) {
    i[0] = skipWs(s, i[0]);
    if (i[0] >= s.length()) throw new IllegalArgumentException("truncated JSON: " + s);
    return s.charAt(i[0]);
  }

  private static void expect(String s, int[] i, char c) {
    if (peek(s, i) != c) throw new IllegalArgumentException("expected " + c + " at " + i[0] + " in " + s);
    i[0]++;
  }

  private static String readString(String s, int[] i) {
    expect(s, i, '"');
    StringBuilder b = new StringBuilder();
    while (true) {
      if (i[0] >= s.length()) throw new IllegalArgumentException("unterminated string in " + s);
      char c = s.charAt(i[0]++);
      if (c == '"') return b.toString();
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i[0]++);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          b.append((char) Integer.parseInt(s.substring(i[0], i[0] + 4), 16));
          i[0] += 4;
        }
        default -> b.append(e);
      }
    }
  }
}
