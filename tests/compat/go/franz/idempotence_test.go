// franz-go idempotent producer (acks=all) producing through a clean restart
// and a kill -9 of the broker: every acknowledged record is in the log once,
// at its acknowledged offset, in produce order per partition.
package franz

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/spool/compat-go/harness"
)

func TestFranzIdempotentProduceThroughRestarts(t *testing.T) {
	b := harness.New(t, nil)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	topic := harness.Topic(t, rng, "t")
	createTopic(t, adm, topic, 3, nil)
	prod := newClient(t, b.Bootstrap(),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.Lz4Compression()),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }))
	const n = 3000
	recs := records(rng, topic, "idem", n, 3, 0)

	var (
		mu      sync.Mutex
		errs    []error
		sent    atomic.Int64
		acked   atomic.Int64
		wg      sync.WaitGroup
		window  = make(chan struct{}, 200) // at most 200 unacknowledged records
		stopped = make(chan struct{})
	)
	go func() {
		defer close(stopped)
		for i, r := range recs {
			window <- struct{}{}
			wg.Add(1)
			prod.Produce(context.Background(), r, func(_ *kgo.Record, err error) {
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
				acked.Add(1)
				<-window
				wg.Done()
			})
			sent.Store(int64(i + 1))
		}
	}()
	// disrupt waits until k records were handed over, then checks that some
	// are still unacknowledged (in flight or buffered) when the broker goes.
	disrupt := func(k int64, what string, f func()) {
		t.Helper()
		if !harness.WaitFor(60*time.Second, func() bool { return sent.Load() >= k }) {
			t.Fatalf("only %d records handed to the producer", sent.Load())
		}
		s, a := sent.Load(), acked.Load()
		if s <= a {
			t.Fatalf("%s: no record in flight (sent %d, acknowledged %d)", what, s, a)
		}
		t.Logf("%s with %d of %d records acknowledged, %d in flight", what, a, n, s-a)
		f()
	}
	disrupt(n/3, "SIGTERM restart", func() {
		if err := b.Restart(); err != nil {
			t.Fatal(err)
		}
	})
	disrupt(2*n/3, "kill -9", func() {
		b.Kill9()
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
	})
	<-stopped
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		t.Fatalf("not every record was acknowledged within 120 s of the last restart")
	}
	mu.Lock()
	if len(errs) > 0 {
		t.Fatalf("%d records failed, first: %v", len(errs), errs[0])
	}
	mu.Unlock()
	want := make([]harness.Want, n)
	next := map[int32]int64{}
	for i, r := range recs {
		if r.Offset != next[r.Partition] {
			t.Fatalf("record %d acknowledged at %s[%d]@%d, want offset %d (a gap or a duplicate)", i, topic, r.Partition, r.Offset, next[r.Partition])
		}
		next[r.Partition]++
		want[i] = harness.Want{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value}
	}
	harness.CheckExact(t, want, gots(consumeFromStart(t, b.Bootstrap(), topic, n), "reader"))
}
