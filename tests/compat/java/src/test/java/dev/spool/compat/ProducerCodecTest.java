// Java producer 4.4 (idempotent, acks=all) with each compression codec:
// seeded random keys (some null or empty), values (some null, compressible
// and random), headers (some with null values) and explicit CreateTime
// timestamps, sent to three partitions; the send offsets must be contiguous
// from 0 per partition and an assign() consumer must read every record back
// byte for byte at the offset the producer was told.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProducerCodecTest extends BrokerTestBase {
  static final int PARTITIONS = 3;
  static final int RECORDS = 900;

  @Override
  Map<String, String> brokerOverrides() {
    return Map.of();
  }

  record Sent(int partition, byte[] key, byte[] value, List<Header> headers, long timestamp) {}

  static byte[] randomBytes(Random rnd, int n) {
    byte[] b = new byte[n];
    rnd.nextBytes(b);
    return b;
  }

  static List<Sent> makeRecords(Random rnd) {
    long baseTs = System.currentTimeMillis() - 3_600_000L;
    List<Sent> out = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      byte[] key = i % 7 == 0 ? null : i % 13 == 0 ? new byte[0] : randomBytes(rnd, 1 + rnd.nextInt(32));
      byte[] value;
      if (i % 11 == 0) {
        value = null;
      } else if (i % 2 == 0) {
        value = ("record " + i + " ").repeat(1 + rnd.nextInt(60)).getBytes(StandardCharsets.UTF_8);
      } else {
        value = randomBytes(rnd, rnd.nextInt(2000));
      }
      List<Header> headers = new ArrayList<>();
      for (int h = 0; h < i % 4; h++) {
        byte[] hv = h == 2 ? null : randomBytes(rnd, rnd.nextInt(20));
        headers.add(new RecordHeader("h" + h + "-" + rnd.nextInt(1000), hv));
      }
      out.add(new Sent(i % PARTITIONS, key, value, headers, baseTs + i * 7L + rnd.nextInt(5)));
    }
    return out;
  }

  @ParameterizedTest(name = "compression.type={0}")
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void everyRecordComesBackByteForByte(String codec) throws Exception {
    Random rnd = new Random(Clients.seed("producer codec " + codec));
    String topic = Clients.topic("java-codec-" + codec);
    Clients.createTopic(admin, topic, PARTITIONS, null);
    List<Sent> sent = makeRecords(rnd);

    var props = Clients.producerProps(broker.bootstrap());
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    List<Future<RecordMetadata>> futures = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
      for (Sent s : sent) {
        futures.add(p.send(new ProducerRecord<>(topic, s.partition(), s.timestamp(), s.key(),
            s.value(), s.headers())));
      }
      p.flush();
    }
    // Offsets the producer was given: contiguous from 0 per partition, in send order.
    long[] nextOffset = new long[PARTITIONS];
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata md = futures.get(i).get(30, TimeUnit.SECONDS);
      int part = sent.get(i).partition();
      assertEquals(part, md.partition());
      assertEquals(nextOffset[part], md.offset(), "send offset of record " + i);
      assertEquals(sent.get(i).timestamp(), md.timestamp(), "CreateTime in metadata of record " + i);
      nextOffset[part]++;
      offsets.add(md.offset());
    }

    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> got = Clients.readToEnd(
        broker.bootstrap(), Clients.partitions(topic, PARTITIONS), "read_uncommitted", 60_000);
    int[] idx = new int[PARTITIONS];
    for (int i = 0; i < sent.size(); i++) {
      Sent s = sent.get(i);
      List<ConsumerRecord<byte[], byte[]>> list = got.get(new TopicPartition(topic, s.partition()));
      ConsumerRecord<byte[], byte[]> r = list.get(idx[s.partition()]++);
      String where = "record " + i + " (partition " + s.partition() + ", codec " + codec + ")";
      assertEquals(offsets.get(i), r.offset(), "offset of " + where);
      assertArrayEquals(s.key(), r.key(), "key of " + where);
      assertArrayEquals(s.value(), r.value(), "value of " + where);
      assertEquals(s.timestamp(), r.timestamp(), "timestamp of " + where);
      assertEquals(TimestampType.CREATE_TIME, r.timestampType(), "timestamp type of " + where);
      Header[] hs = r.headers().toArray();
      assertEquals(s.headers().size(), hs.length, "header count of " + where);
      for (int h = 0; h < hs.length; h++) {
        assertEquals(s.headers().get(h).key(), hs[h].key(), "header key " + h + " of " + where);
        assertArrayEquals(s.headers().get(h).value(), hs[h].value(), "header value " + h + " of " + where);
      }
    }
    for (int part = 0; part < PARTITIONS; part++) {
      assertEquals(nextOffset[part], got.get(new TopicPartition(topic, part)).size(),
          "records read back from partition " + part);
    }
  }

  @Test
  void acknowledgedRecordsSurviveBrokerKill9() throws Exception {
    String topic = Clients.topic("java-kill9");
    Clients.createTopic(admin, topic, PARTITIONS, null);
    var props = Clients.producerProps(broker.bootstrap());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    final int perRound = 300;
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
      for (int round = 0; round < 2; round++) {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (int i = round * perRound; i < (round + 1) * perRound; i++) {
          fs.add(p.send(new ProducerRecord<>(topic, i % PARTITIONS, null, ("k" + i).getBytes(StandardCharsets.UTF_8))));
        }
        p.flush();
        for (int i = 0; i < fs.size(); i++) {
          int n = round * perRound + i;
          assertEquals(n / PARTITIONS, fs.get(i).get(30, TimeUnit.SECONDS).offset(), "send offset of record " + n);
        }
        if (round == 0) {
          broker.kill9(); // every record above was acknowledged with acks=all
          broker.start();
        }
      }
    }
    var got = Clients.readToEnd(broker.bootstrap(), Clients.partitions(topic, PARTITIONS), "read_uncommitted", 60_000);
    for (int part = 0; part < PARTITIONS; part++) {
      List<String> want = new ArrayList<>();
      List<String> have = new ArrayList<>();
      for (int i = part; i < 2 * perRound; i += PARTITIONS) want.add((i / PARTITIONS) + ":k" + i);
      for (ConsumerRecord<byte[], byte[]> r : got.get(new TopicPartition(topic, part))) {
        have.add(r.offset() + ":" + new String(r.value(), StandardCharsets.UTF_8));
      }
      assertEquals(want, have, "partition " + part + " after kill -9 and restart");
    }
  }
}
