// sarama SyncProducer and AsyncProducer with acks=all (WaitForAll) and every
// codec sarama supports, idempotent; read back byte for byte with offsets.
package sarama

import (
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/spool/compat-go/harness"
)

var codecs = []struct {
	name  string
	codec sarama.CompressionCodec
}{
	{"none", sarama.CompressionNone},
	{"gzip", sarama.CompressionGZIP},
	{"snappy", sarama.CompressionSnappy},
	{"lz4", sarama.CompressionLZ4},
	{"zstd", sarama.CompressionZSTD},
}

func producerConfig(codec sarama.CompressionCodec) *sarama.Config {
	c := config("producer")
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	c.Producer.Compression = codec
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.Idempotent = true
	c.Net.MaxOpenRequests = 1
	c.Producer.Retry.Max = 5
	return c
}

// checkOffsets: per partition the acknowledged offsets are 0..n-1 in send order.
func checkOffsets(t *testing.T, msgs []*sarama.ProducerMessage) {
	t.Helper()
	next := map[int32]int64{}
	for _, m := range msgs {
		if m.Offset != next[m.Partition] {
			t.Fatalf("partition %d: acknowledged offset %d, want %d", m.Partition, m.Offset, next[m.Partition])
		}
		next[m.Partition]++
	}
}

func TestSaramaSyncProducerEveryCodec(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			topic := harness.Topic(t, rng, "t")
			createTopic(t, b.Bootstrap(), topic, 3)
			p, err := sarama.NewSyncProducer([]string{b.Bootstrap()}, producerConfig(c.codec))
			if err != nil {
				t.Fatalf("sync producer: %v", err)
			}
			defer p.Close()
			msgs := messages(t, rng, topic, c.name, 300, 3, 0, func(j int) []byte { return harness.Payload(rng, c.name, j) })
			// Half in one SendMessages call, half one at a time.
			if err := p.SendMessages(msgs[:150]); err != nil {
				t.Fatalf("SendMessages: %v", err)
			}
			for _, m := range msgs[150:] {
				part, off, err := p.SendMessage(m)
				if err != nil || part != m.Partition || off != m.Offset {
					t.Fatalf("SendMessage: partition %d offset %d err %v (message says %d/%d)", part, off, err, m.Partition, m.Offset)
				}
			}
			checkOffsets(t, msgs)
			harness.CheckExact(t, wantOf(t, msgs), readBack(t, b.Bootstrap(), topic, 3, len(msgs)))
		})
	}
}

func TestSaramaAsyncProducerEveryCodec(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			topic := harness.Topic(t, rng, "t")
			createTopic(t, b.Bootstrap(), topic, 3)
			cfg := producerConfig(c.codec)
			cfg.Producer.Flush.Messages = 25
			cfg.Producer.Flush.Frequency = 5 * time.Millisecond
			p, err := sarama.NewAsyncProducer([]string{b.Bootstrap()}, cfg)
			if err != nil {
				t.Fatalf("async producer: %v", err)
			}
			msgs := messages(t, rng, topic, c.name, 300, 3, 0, func(j int) []byte { return harness.Payload(rng, c.name, j) })
			go func() {
				for _, m := range msgs {
					p.Input() <- m
				}
			}()
			acked := 0
			timeout := time.After(60 * time.Second)
			for acked < len(msgs) {
				select {
				case <-p.Successes():
					acked++
				case perr := <-p.Errors():
					t.Fatalf("async produce error: %v", perr)
				case <-timeout:
					t.Fatalf("%d of %d acknowledged in 60 s", acked, len(msgs))
				}
			}
			if err := p.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			checkOffsets(t, msgs)
			harness.CheckExact(t, wantOf(t, msgs), readBack(t, b.Bootstrap(), topic, 3, len(msgs)))
		})
	}
}
