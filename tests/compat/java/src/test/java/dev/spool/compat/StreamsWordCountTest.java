// Kafka Streams 4.4 word count, processing.guarantee=exactly_once_v2, run as
// a separate JVM (WordCountApp, classpath from target/runtime.classpath):
// seeded random lines keep arriving while the app runs; the app is killed
// with SIGKILL mid-run and started again on the same state dir; the output
// topic read with read_committed, latest value per word, must hold exactly
// the word counts of all input lines.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StreamsWordCountTest extends BrokerTestBase {
  static final int PARTITIONS = 3;
  static final int FIRST_LINES = 300;
  static final int STREAMED_CHUNKS = 90;
  static final int CHUNK_LINES = 30;
  static final int TOTAL_LINES = FIRST_LINES + STREAMED_CHUNKS * CHUNK_LINES;
  static final int KILL_AT_COMMITTED = FIRST_LINES + 600;
  static final int MAX_LAG = 900;
  static final String[] WORDS = {
      "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
      "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
      "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "spool", "kafka", "log", "broker"};

  @Override
  Map<String, String> brokerOverrides() {
    return Map.of(
        "group.initial.rebalance.delay.ms", "0",
        "offsets.topic.num.partitions", "4",
        "transaction.state.log.num.partitions", "4",
        "transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
  }

  /** One WordCountApp JVM; its output goes to a file shown on failure. */
  final class App {
    final Process proc;
    final Path log;

    App(int n, String appId, String in, String out, Path stateDir) throws IOException {
      Path project = TestBroker.projectDir();
      Path cpFile = project.resolve("target/runtime.classpath");
      assertTrue(Files.exists(cpFile), cpFile + " missing (mvn generate-resources writes it)");
      String cp = project.resolve("target/classes") + File.pathSeparator + Files.readString(cpFile).trim();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      log = broker.workDir().resolve("wordcount." + n + ".log");
      proc = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, WordCountApp.class.getName(),
          broker.bootstrap(), appId, in, out, stateDir.toString())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    String output() {
      return TestBroker.tail(TestBroker.read(log));
    }

    void assertAlive() {
      if (!proc.isAlive()) fail("WordCountApp exited " + proc.exitValue() + ":\n" + output());
    }
  }

  long committedLines(String group, String in) {
    Map<TopicPartition, OffsetAndMetadata> m =
        Clients.unchecked(() -> get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()));
    long sum = 0;
    for (var e : m.entrySet()) if (e.getKey().topic().equals(in) && e.getValue() != null) sum += e.getValue().offset();
    return sum;
  }

  static String line(Random rnd) {
    StringBuilder sb = new StringBuilder();
    int n = 1 + rnd.nextInt(8);
    for (int i = 0; i < n; i++) {
      if (i > 0) sb.append(rnd.nextInt(5) == 0 ? ", " : " ");
      String w = WORDS[rnd.nextInt(WORDS.length)];
      sb.append(rnd.nextInt(4) == 0 ? w.toUpperCase() : w);
    }
    return sb.toString();
  }

  @Test
  void exactlyOnceWordCountSurvivesKill9() throws Exception {
    Random rnd = new Random(Clients.seed("streams word count input"));
    String in = Clients.topic("java-wc-in");
    String out = Clients.topic("java-wc-out");
    String appId = Clients.topic("java-wc-app");
    Clients.createTopic(admin, in, PARTITIONS, null);
    Clients.createTopic(admin, out, PARTITIONS, null);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < TOTAL_LINES; i++) lines.add(line(rnd));
    Map<String, Long> expected = new TreeMap<>();
    for (String l : lines) {
      for (String w : l.toLowerCase().split("\\W+")) if (!w.isEmpty()) expected.merge(w, 1L, Long::sum);
    }
    Path stateDir = broker.workDir().resolve("streams-state");

    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Clients.producerProps(broker.bootstrap()));
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    AtomicReference<Throwable> producerError = new AtomicReference<>();
    App first = null;
    App second = null;
    Thread streamer = null;
    try {
      for (int i = 0; i < FIRST_LINES; i++) send(producer, in, i, lines.get(i));
      producer.flush();
      sent.set(FIRST_LINES);

      Clients.note("streams: starting the app (" + FIRST_LINES + " lines waiting)");
      first = new App(1, appId, in, out, stateDir);
      App a1 = first;
      Clients.waitUntil(60_000, () -> {
        a1.assertAlive();
        return committedLines(appId, in) > 0;
      }, () -> "the first app never committed:\n" + a1.output());

      Clients.note("streams: first commit seen");
      // More lines keep arriving; kill -9 the app while it works on them.
      streamer = new Thread(() -> {
        try {
          for (int c = 0; c < STREAMED_CHUNKS; c++) {
            int base = FIRST_LINES + c * CHUNK_LINES;
            // Until the kill, stay at most MAX_LAG lines ahead of the app, so that
            // input is still arriving when it dies however slow the machine is.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!killed.get() && base - committedLines(appId, in) > MAX_LAG) {
              if (System.nanoTime() > until) throw new AssertionError("the app stopped committing");
              Thread.sleep(20);
            }
            for (int i = base; i < base + CHUNK_LINES; i++) send(producer, in, i, lines.get(i));
            producer.flush();
            sent.set(base + CHUNK_LINES);
            Thread.sleep(30);
          }
        } catch (Throwable t) {
          producerError.set(t);
        }
      }, "input-streamer");
      streamer.start();
      long[] atKill = new long[2];
      Clients.waitUntil(60_000, () -> {
        a1.assertAlive();
        return committedLines(appId, in) >= KILL_AT_COMMITTED;
      }, () -> "the first app did not keep up:\n" + a1.output());
      atKill[1] = sent.get();
      first.proc.destroyForcibly(); // SIGKILL
      killed.set(true);
      assertTrue(first.proc.waitFor(10, TimeUnit.SECONDS));
      atKill[0] = committedLines(appId, in);
      Clients.note("streams: killed -9 with " + atKill[0] + " lines committed of " + atKill[1]
          + " sent (" + TOTAL_LINES + " in all)");
      assertTrue(atKill[1] < TOTAL_LINES, "the input was complete before the kill: not mid-run");

      second = new App(2, appId, in, out, stateDir);
      App a2 = second;
      Thread st = streamer;
      // Input offsets committed is not the end (the counting sub-topology reads a
      // repartition topic): wait until the committed output holds the exact counts.
      try (OutputReader reader = new OutputReader(out)) {
        Clients.waitUntil(120_000, () -> {
          a2.assertAlive();
          reader.poll(expected);
          return !st.isAlive() && reader.latest.equals(expected);
        }, () -> "the restarted app did not reach the exact counts: " + committedLines(appId, in) + " of "
            + TOTAL_LINES + " input lines committed, producer error " + producerError.get() + "\ncounts "
            + reader.latest + "\nwanted " + expected + "\n" + a2.output());
      }
      Clients.note("streams: exact counts reached");
      assertEquals(TOTAL_LINES, committedLines(appId, in), "input lines committed");
      assertEquals(null, producerError.get());
      second.assertAlive();
    } finally {
      if (streamer != null) streamer.join(30_000);
      producer.close();
      for (App a : new App[] {first, second}) {
        if (a != null && a.proc.isAlive()) {
          a.proc.destroy(); // SIGTERM: the app closes its streams
          if (!a.proc.waitFor(30, TimeUnit.SECONDS)) a.proc.destroyForcibly();
        }
      }
    }

    // Latest committed value per word in the output topic, once no transaction is open on it.
    List<TopicPartition> outParts = Clients.partitions(out, PARTITIONS);
    Map<TopicPartition, Long> hw = Clients.awaitNoOpenTransactions(broker.bootstrap(), outParts, 30_000);
    // After a clean close, the whole committed output once more: nothing counted twice.
    Map<String, Long> latest = new TreeMap<>();
    var got = Clients.readToEnd(broker.bootstrap(), outParts, "read_committed", 60_000);
    for (TopicPartition tp : outParts) {
      for (ConsumerRecord<byte[], byte[]> r : got.get(tp)) {
        latest.put(new String(r.key(), StandardCharsets.UTF_8), ByteBuffer.wrap(r.value()).getLong());
      }
    }
    assertEquals(expected, latest, "word counts (read_committed, latest per word); output high watermarks " + hw);
  }

  /** read_committed reader of the output topic keeping the latest count per word. */
  final class OutputReader implements AutoCloseable {
    final KafkaConsumer<byte[], byte[]> consumer;
    final Map<String, Long> latest = new TreeMap<>();

    OutputReader(String topic) {
      consumer = new KafkaConsumer<>(Clients.consumerProps(broker.bootstrap(), "read_committed"));
      List<TopicPartition> tps = Clients.partitions(topic, PARTITIONS);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
    }

    void poll(Map<String, Long> expected) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        String word = new String(r.key(), StandardCharsets.UTF_8);
        long count = ByteBuffer.wrap(r.value()).getLong();
        if (count > expected.getOrDefault(word, 0L)) {
          fail("committed count " + count + " for '" + word + "' at " + r.partition() + "@" + r.offset()
              + " exceeds the " + expected.get(word) + " occurrences in the input: counted twice");
        }
        latest.put(word, count);
      }
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  static void send(KafkaProducer<byte[], byte[]> p, String topic, int i, String line) {
    p.send(new ProducerRecord<>(topic, i % PARTITIONS, null, line.getBytes(StandardCharsets.UTF_8)));
  }
}
