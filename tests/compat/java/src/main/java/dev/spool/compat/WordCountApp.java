// Kafka Streams 4.4 word count with processing.guarantee=exactly_once_v2, run
// as its own JVM by StreamsWordCountTest so that the test can kill -9 it and
// start it again on the same state dir. Usage:
//   java -cp ... dev.spool.compat.WordCountApp BOOTSTRAP APP_ID INPUT OUTPUT STATE_DIR
// Prints "STATE <new state>" on every state change; on a stream-thread error
// it prints the error and exits 3, so the test sees the crash.
package dev.spool.compat;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public final class WordCountApp {
  private WordCountApp() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: WordCountApp BOOTSTRAP APP_ID INPUT OUTPUT STATE_DIR");
      System.exit(2);
    }
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    // A killed member leaves the group after its session timeout: keep it short.
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "6000");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "500");
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), "10000");

    StreamsBuilder b = new StreamsBuilder();
    b.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
        .filter((k, word) -> !word.isEmpty())
        .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.as("counts"))
        .toStream()
        .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    CountDownLatch done = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      System.out.println("STATE " + now);
      System.out.flush();
      if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) done.countDown();
    });
    streams.setUncaughtExceptionHandler(e -> {
      System.out.println("STREAMS ERROR " + e);
      e.printStackTrace(System.out);
      System.out.flush();
      Runtime.getRuntime().halt(3);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close();
      System.out.println("CLOSED");
      System.out.flush();
    }));
    streams.start();
    done.await();
  }
}
