// Shared set-up of the IBM/sarama tests: one broker for the package, the
// client config (Config.Version pinned to one both Spool and Kafka 4.4
// serve), topic creation and a read-back over partition consumers.
package sarama

import (
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/spool/compat-go/harness"
)

// kafkaVersion is the protocol level sarama speaks (it picks request
// versions from it rather than negotiating them).
var kafkaVersion = sarama.V3_6_0_0

func TestMain(m *testing.M) { harness.Main(m) }

func config(clientID string) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = kafkaVersion
	c.ClientID = clientID
	c.Metadata.AllowAutoTopicCreation = false
	return c
}

func createTopic(t testing.TB, bootstrap, topic string, partitions int32) {
	t.Helper()
	adm, err := sarama.NewClusterAdmin([]string{bootstrap}, config("admin"))
	if err != nil {
		t.Fatalf("cluster admin: %v", err)
	}
	defer adm.Close()
	if err := adm.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: partitions, ReplicationFactor: 1}, false); err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// messages builds n messages spread round-robin over partitions (the
// producer uses the manual partitioner).
func messages(t testing.TB, rng interface{ Intn(int) int }, topic, tag string, n int, partitions int32, start int, payload func(int) []byte) []*sarama.ProducerMessage {
	out := make([]*sarama.ProducerMessage, n)
	for i := range out {
		j := start + i
		out[i] = &sarama.ProducerMessage{
			Topic:     topic,
			Partition: int32(j) % partitions,
			Key:       sarama.ByteEncoder(fmt.Sprintf("key-%d", j%7)),
			Value:     sarama.ByteEncoder(payload(j)),
			Headers:   []sarama.RecordHeader{{Key: []byte("i"), Value: []byte(fmt.Sprint(j))}},
		}
	}
	return out
}

func wantOf(t testing.TB, msgs []*sarama.ProducerMessage) []harness.Want {
	want := make([]harness.Want, len(msgs))
	for i, m := range msgs {
		k, _ := m.Key.Encode()
		v, _ := m.Value.Encode()
		want[i] = harness.Want{Partition: m.Partition, Offset: m.Offset, Key: k, Value: v}
	}
	return want
}

// readBack consumes every partition from the oldest offset until n messages
// arrived (then 300 ms more, so extras would show) and checks headers.
func readBack(t testing.TB, bootstrap, topic string, partitions int32, n int) []harness.Got {
	t.Helper()
	return readBackIsolated(t, bootstrap, topic, partitions, n, sarama.ReadUncommitted)
}

func readBackIsolated(t testing.TB, bootstrap, topic string, partitions int32, n int, iso sarama.IsolationLevel) []harness.Got {
	t.Helper()
	cfg := config("reader")
	cfg.Consumer.IsolationLevel = iso
	cons, err := sarama.NewConsumer([]string{bootstrap}, cfg)
	if err != nil {
		t.Fatalf("consumer: %v", err)
	}
	defer cons.Close()
	ch := make(chan *sarama.ConsumerMessage, 1024)
	for p := int32(0); p < partitions; p++ {
		pc, err := cons.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatalf("consume %s[%d]: %v", topic, p, err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				ch <- m
			}
		}()
	}
	var got []harness.Got
	deadline := time.After(60 * time.Second)
	var extra <-chan time.Time
	for {
		if len(got) >= n && extra == nil {
			extra = time.After(300 * time.Millisecond)
		}
		select {
		case m := <-ch:
			if len(m.Headers) != 1 || string(m.Headers[0].Key) != "i" {
				t.Fatalf("%s[%d]@%d headers %v", topic, m.Partition, m.Offset, m.Headers)
			}
			got = append(got, harness.Got{Partition: m.Partition, Offset: m.Offset, Key: m.Key, Value: m.Value, Member: "reader"})
		case <-extra:
			return got
		case <-deadline:
			t.Fatalf("read %d of %d messages of %s in 60 s", len(got), n, topic)
		}
	}
}
