// segmentio/kafka-go: a Writer with RequiredAcks=all (every codec; offsets
// from its Completion callback) read back byte for byte, and a consumer
// group of two Readers (GroupID set; kafka-go's older group API versions)
// consuming everything exactly once with synchronous commits, through a
// rebalance when the second joins and when one leaves.
package kafkago

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/spool/compat-go/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

func createTopic(t testing.TB, bootstrap, topic string, partitions int) {
	t.Helper()
	cl := &kafka.Client{Addr: kafka.TCP(bootstrap), Timeout: 20 * time.Second}
	resp, err := cl.CreateTopics(harness.Ctx(t, 30*time.Second), &kafka.CreateTopicsRequest{
		Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}}})
	if err != nil || resp.Errors[topic] != nil {
		t.Fatalf("create topic %s: %v / %v", topic, err, resp.Errors[topic])
	}
}

// byHeader sends each message to the partition named by its "p" header.
type byHeader struct{}

func (byHeader) Balance(m kafka.Message, partitions ...int) int {
	for _, h := range m.Headers {
		if h.Key == "p" {
			p, _ := strconv.Atoi(string(h.Value))
			return p
		}
	}
	return partitions[0]
}

// writer collects the Completion callback's offsets as wanted records.
type writer struct {
	w    *kafka.Writer
	mu   sync.Mutex
	want []harness.Want
	errs []error
}

func newWriter(t testing.TB, bootstrap, topic string, codec kafka.Compression) *writer {
	wr := &writer{}
	wr.w = &kafka.Writer{
		Addr: kafka.TCP(bootstrap), Topic: topic, Balancer: byHeader{},
		RequiredAcks: kafka.RequireAll, Compression: codec,
		BatchSize: 40, BatchTimeout: 5 * time.Millisecond, WriteTimeout: 20 * time.Second,
		Completion: func(msgs []kafka.Message, err error) {
			wr.mu.Lock()
			defer wr.mu.Unlock()
			if err != nil {
				wr.errs = append(wr.errs, err)
				return
			}
			for _, m := range msgs {
				wr.want = append(wr.want, harness.Want{Partition: int32(m.Partition), Offset: m.Offset, Key: m.Key, Value: m.Value})
			}
		},
	}
	t.Cleanup(func() { wr.w.Close() })
	return wr
}

// write sends n messages round-robin over partitions, in one call.
func (wr *writer) write(t testing.TB, rng *rand.Rand, tag string, n, partitions, start int) {
	t.Helper()
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		j := start + i
		msgs[i] = kafka.Message{
			Key:     []byte(fmt.Sprintf("key-%d", j%7)),
			Value:   harness.Payload(rng, tag, j),
			Headers: []kafka.Header{{Key: "p", Value: []byte(strconv.Itoa(j % partitions))}},
		}
	}
	if err := wr.w.WriteMessages(harness.Ctx(t, 60*time.Second), msgs...); err != nil {
		t.Fatalf("WriteMessages: %v", err)
	}
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if len(wr.errs) > 0 {
		t.Fatalf("writer completion errors: %v", wr.errs)
	}
}

func (wr *writer) wanted(t testing.TB, partitions int) []harness.Want {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	// Acknowledged offsets per partition are 0..n-1.
	byPart := map[int32][]int64{}
	for _, w := range wr.want {
		byPart[w.Partition] = append(byPart[w.Partition], w.Offset)
	}
	for p, offs := range byPart {
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for i, o := range offs {
			if o != int64(i) {
				t.Fatalf("partition %d acknowledged offsets %v, want 0..%d", p, offs, len(offs)-1)
			}
		}
	}
	out := append([]harness.Want(nil), wr.want...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

func TestKafkaGoWriterEveryCodec(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	codecs := []struct {
		name  string
		codec kafka.Compression
	}{{"none", 0}, {"gzip", kafka.Gzip}, {"snappy", kafka.Snappy}, {"lz4", kafka.Lz4}, {"zstd", kafka.Zstd}}
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			topic := harness.Topic(t, rng, "t")
			createTopic(t, b.Bootstrap(), topic, 3)
			wr := newWriter(t, b.Bootstrap(), topic, c.codec)
			wr.write(t, rng, c.name, 300, 3, 0)
			want := wr.wanted(t, 3)
			if len(want) != 300 {
				t.Fatalf("completion reported %d messages, want 300", len(want))
			}
			var got []harness.Got
			for p := 0; p < 3; p++ {
				r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{b.Bootstrap()}, Topic: topic, Partition: p,
					MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond})
				ctx := harness.Ctx(t, 30*time.Second)
				for n := 0; n < 100; n++ {
					m, err := r.ReadMessage(ctx)
					if err != nil {
						t.Fatalf("read %s[%d] after %d: %v", topic, p, n, err)
					}
					if len(m.Headers) != 1 || m.Headers[0].Key != "p" || string(m.Headers[0].Value) != strconv.Itoa(p) {
						t.Fatalf("%s[%d]@%d headers %v", topic, p, m.Offset, m.Headers)
					}
					got = append(got, harness.Got{Partition: int32(m.Partition), Offset: m.Offset, Key: m.Key, Value: m.Value})
				}
				// Nothing past the 100th message: the partition's end offset is 100.
				if hw := r.Lag() + r.Offset(); r.Offset() != 100 || hw != 100 {
					t.Fatalf("%s[%d]: reader at %d, high watermark %d, want 100", topic, p, r.Offset(), hw)
				}
				r.Close()
			}
			harness.CheckExact(t, want, got)
		})
	}
}
