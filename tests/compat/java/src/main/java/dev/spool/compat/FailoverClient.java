// The Java client 4.4 through a leader failover, driven by tests/system/test_failover_clients.py
// (run as its own JVM: classpath target/classes + target/runtime.classpath). An idempotent
// acks=all producer sends N unique values to partition 0 of TOPIC, prints {"ev":"half"} after
// KILL_AT acks (the Python test then kill -9s the leader) and keeps sending; then a read_committed
// consumer (assign + seekToBeginning, no group) reads partition 0 up to its end offset.
// One JSON line per event on stdout, the same as tests/system/failover_js.js:
//   send {v,t}  ack {v,offset,t}  fail {v,err,definite,t}  half  produced  read {offset,v}  done
// t = wall-clock seconds. Usage: FailoverClient BOOTSTRAP TOPIC N KILL_AT PREFIX DEADLINE_S
package dev.spool.compat;

import static dev.spool.compat.JsonLines.emit;
import static dev.spool.compat.JsonLines.now;
import static dev.spool.compat.JsonLines.quote;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class FailoverClient {
  private FailoverClient() {}

  /** Errors that mean "not written" for sure; others leave the outcome unknown. */
  private static boolean definite(Exception e) {
    return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidTopicException || e instanceof TopicAuthorizationException;
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int n = Integer.parseInt(args[2]);
    int killAt = Integer.parseInt(args[3]);
    String prefix = args[4];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[5]) * 1000L;
    TopicPartition tp = new TopicPartition(topic, 0);

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    pp.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    pp.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
    pp.put(ProducerConfig.CLIENT_ID_CONFIG, "failover-" + prefix);
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    AtomicInteger acked = new AtomicInteger();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      for (int i = 0; i < n && System.currentTimeMillis() < deadline; i++) {
        String v = prefix + "-" + i;
        emit("{\"ev\":\"send\",\"v\":" + quote(v) + ",\"t\":" + now() + "}");
        producer.send(new ProducerRecord<>(topic, 0, null, v), (md, e) -> {
          if (e == null) {
            emit("{\"ev\":\"ack\",\"v\":" + quote(v) + ",\"offset\":" + md.offset() + ",\"t\":" + now() + "}");
            if (acked.incrementAndGet() == killAt) emit("{\"ev\":\"half\"}");
          } else {
            emit("{\"ev\":\"fail\",\"v\":" + quote(v) + ",\"err\":" + quote(e.toString())
                + ",\"definite\":" + definite(e) + ",\"t\":" + now() + "}");
          }
        });
        Thread.sleep(5);
      }
      producer.flush();
    }
    emit("{\"ev\":\"produced\"}");

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.CLIENT_ID_CONFIG, "failover-" + prefix + "-reader");
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
      while (consumer.position(tp, Duration.ofSeconds(30)) < end) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("consumer reached " + consumer.position(tp) + " of " + end);
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          emit("{\"ev\":\"read\",\"offset\":" + r.offset() + ",\"v\":" + quote(r.value()) + "}");
        }
      }
      emit("{\"ev\":\"done\",\"high\":" + end + "}");
    }
  }
}
