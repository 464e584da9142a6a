// Shared set-up of the franz-go (kgo, kadm) tests: one broker for the
// package (harness.Main), client constructors, topic creation, produce with
// offsets and a read-from-start consumer.
package franz

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/spool/compat-go/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

func newClient(t testing.TB, bootstrap string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap)}, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func newAdmin(t testing.TB, bootstrap string) *kadm.Client {
	return kadm.NewClient(newClient(t, bootstrap))
}

func createTopic(t testing.TB, adm *kadm.Client, topic string, partitions int32, configs map[string]*string) {
	t.Helper()
	resp, err := adm.CreateTopic(harness.Ctx(t, 30*time.Second), partitions, 1, configs, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("create topic %s: %v / %v %s", topic, err, resp.Err, resp.ErrMessage)
	}
}

// produceSync sends the records (their Partition set; the client must use the
// ManualPartitioner) and returns them as wanted records with their offsets.
func produceSync(t testing.TB, cl *kgo.Client, recs []*kgo.Record) []harness.Want {
	t.Helper()
	res := cl.ProduceSync(harness.Ctx(t, 60*time.Second), recs...)
	if err := res.FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	want := make([]harness.Want, len(res))
	for i, r := range res {
		want[i] = harness.Want{Partition: r.Record.Partition, Offset: r.Record.Offset, Key: r.Record.Key, Value: r.Record.Value}
	}
	return want
}

// records builds n records for topic spread round-robin over partitions.
func records(rng *rand.Rand, topic, tag string, n int, partitions int32, start int) []*kgo.Record {
	out := make([]*kgo.Record, n)
	for i := 0; i < n; i++ {
		j := start + i
		out[i] = &kgo.Record{
			Topic:     topic,
			Partition: int32(j) % partitions,
			Key:       []byte(fmt.Sprintf("key-%d", j%7)),
			Value:     harness.Payload(rng, tag, j),
		}
	}
	return out
}

// consumeFromStart reads topic from the start (no group) until n records
// arrived, then polls 300 ms more so extra records would be caught.
func consumeFromStart(t testing.TB, bootstrap, topic string, n int, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	cl := newClient(t, bootstrap, append([]kgo.Opt{kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	var out []*kgo.Record
	deadline := time.Now().Add(60 * time.Second)
	extra := time.Time{}
	for {
		now := time.Now()
		if now.After(deadline) {
			t.Fatalf("consumed %d of %d records of %s within 60 s", len(out), n, topic)
		}
		if len(out) >= n {
			if extra.IsZero() {
				extra = now.Add(300 * time.Millisecond)
			} else if now.After(extra) {
				return out
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		fs.EachError(func(tp string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("fetch %s[%d]: %v", tp, p, err)
			}
		})
		out = append(out, fs.Records()...)
	}
}

func gots(recs []*kgo.Record, member string) []harness.Got {
	out := make([]harness.Got, len(recs))
	for i, r := range recs {
		out[i] = harness.Got{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, Member: member}
	}
	return out
}

func strp(s string) *string { return &s }
