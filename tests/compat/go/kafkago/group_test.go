// kafka-go group Readers: two members (range balancer), exactly once with
// synchronous CommitMessages; a record counts once its commit succeeded.
// Assignments are observed through kafka-go's own DescribeGroups.
package kafkago

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/spool/compat-go/harness"
)

type reader struct {
	name     string
	r        *kafka.Reader
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
	stopped  bool
	closeErr error
	mu       sync.Mutex
	errs     []error
}

func startReader(t *testing.T, name, bootstrap, group, topic string, ledger *harness.Ledger) *reader {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: []string{bootstrap}, GroupID: group, Topic: topic,
		Dialer:         &kafka.Dialer{ClientID: name, Timeout: 10 * time.Second, DualStack: false},
		GroupBalancers: []kafka.GroupBalancer{kafka.RangeGroupBalancer{}},
		MinBytes:       1, MaxBytes: 1 << 20, MaxWait: 100 * time.Millisecond,
		CommitInterval: 0, StartOffset: kafka.FirstOffset,
		HeartbeatInterval: 300 * time.Millisecond, SessionTimeout: 6 * time.Second,
		RebalanceTimeout: 10 * time.Second, JoinGroupBackoff: 200 * time.Millisecond,
		ReadBackoffMin: 50 * time.Millisecond, ReadBackoffMax: 200 * time.Millisecond,
		ErrorLogger: kafka.LoggerFunc(func(f string, a ...any) { t.Logf(name+": "+f, a...) }),
	})
	ctx, cancel := context.WithCancel(context.Background())
	rd := &reader{name: name, r: r, cancel: cancel, done: make(chan struct{})}
	// A test that fails half-way still stops its readers (their loggers use t).
	t.Cleanup(func() { rd.stop() })
	go func() {
		defer close(rd.done)
		for {
			m, err := r.FetchMessage(ctx)
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					rd.addErr(err)
				}
				return
			}
			cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
			err = r.CommitMessages(cctx, m)
			ccancel()
			if err != nil {
				// Not committed: the next owner reads it again, so it does not count.
				t.Logf("%s: commit of %s[%d]@%d failed: %v", name, m.Topic, m.Partition, m.Offset, err)
				continue
			}
			ledger.Add(harness.Got{Partition: int32(m.Partition), Offset: m.Offset, Key: m.Key, Value: m.Value, Member: name})
		}
	}()
	return rd
}

func (rd *reader) addErr(err error) {
	rd.mu.Lock()
	rd.errs = append(rd.errs, err)
	rd.mu.Unlock()
}

// stop ends the fetch loop and closes the reader (which leaves the group),
// once; it reports whether the loop ended within 10 s, and the close error.
func (rd *reader) stop() (bool, error) {
	rd.once.Do(func() {
		rd.cancel()
		select {
		case <-rd.done:
			rd.stopped = true
		case <-time.After(10 * time.Second):
		}
		rd.closeErr = rd.r.Close()
	})
	return rd.stopped, rd.closeErr
}

// close stops the reader and fails t on any error it met.
func (rd *reader) close(t *testing.T) {
	if stopped, err := rd.stop(); !stopped || err != nil {
		t.Errorf("%s: stopped %v, close: %v", rd.name, stopped, err)
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	for _, err := range rd.errs {
		t.Errorf("%s: %v", rd.name, err)
	}
}

// assignment describes the group: state and partitions per client id.
func assignment(t *testing.T, bootstrap, group, topic string) (string, map[string][]int) {
	cl := &kafka.Client{Addr: kafka.TCP(bootstrap), Timeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cl.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: []string{group}})
	if err != nil || len(resp.Groups) != 1 || resp.Groups[0].Error != nil {
		return "", nil
	}
	out := map[string][]int{}
	for _, m := range resp.Groups[0].Members {
		for _, tp := range m.MemberAssignments.Topics {
			if tp.Topic == topic {
				ps := append([]int(nil), tp.Partitions...)
				sort.Ints(ps)
				out[m.ClientID] = append(out[m.ClientID], ps...)
			}
		}
	}
	return resp.Groups[0].GroupState, out
}

func waitAssignment(t *testing.T, bootstrap, group, topic string, want map[string]int) {
	t.Helper()
	var state string
	var got map[string][]int
	if !harness.WaitFor(30*time.Second, func() bool {
		state, got = assignment(t, bootstrap, group, topic)
		if state != "Stable" || len(got) != len(want) {
			return false
		}
		for id, n := range want {
			if len(got[id]) != n {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("group %s: state %q assignment %v, want Stable with %v partitions per member", group, state, got, want)
	}
}

func TestKafkaGoGroupReadersExactlyOnce(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	topic, group := harness.Topic(t, rng, "t"), harness.Topic(t, rng, "g")
	const parts = 4
	createTopic(t, b.Bootstrap(), topic, parts)
	wr := newWriter(t, b.Bootstrap(), topic, 0)
	ledger := &harness.Ledger{}
	waitCount := func(n int, what string) {
		if !harness.WaitFor(45*time.Second, func() bool { return ledger.Len() >= n }) {
			t.Fatalf("%s: consumed %d of %d", what, ledger.Len(), n)
		}
	}

	// The first group of a fresh broker creates __consumer_offsets; kafka-go
	// backs off for long on COORDINATOR_NOT_AVAILABLE, so wait for it here.
	cl := &kafka.Client{Addr: kafka.TCP(b.Bootstrap()), Timeout: 5 * time.Second}
	var ferr error
	if !harness.WaitFor(60*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := cl.FindCoordinator(ctx, &kafka.FindCoordinatorRequest{Key: group, KeyType: kafka.CoordinatorKeyTypeConsumer})
		if err == nil {
			err = resp.Error
		}
		ferr = err
		return err == nil
	}) {
		t.Fatalf("no coordinator for group %s: %v", group, ferr)
	}
	wr.write(t, rng, "a", 100, parts, 0)
	m1 := startReader(t, "m1", b.Bootstrap(), group, topic, ledger)
	waitCount(100, "m1 alone")
	waitAssignment(t, b.Bootstrap(), group, topic, map[string]int{"m1": parts})

	m2 := startReader(t, "m2", b.Bootstrap(), group, topic, ledger)
	waitAssignment(t, b.Bootstrap(), group, topic, map[string]int{"m1": parts / 2, "m2": parts / 2})
	before := ledger.CountBy()
	wr.write(t, rng, "b", 100, parts, 100)
	waitCount(200, "two members")
	after := ledger.CountBy()
	if after["m1"]-before["m1"] != 50 || after["m2"]-before["m2"] != 50 {
		t.Fatalf("second batch split m1 %d / m2 %d, want 50 / 50", after["m1"]-before["m1"], after["m2"]-before["m2"])
	}

	m1.close(t)
	waitAssignment(t, b.Bootstrap(), group, topic, map[string]int{"m2": parts})
	wr.write(t, rng, "c", 100, parts, 200)
	waitCount(300, "m2 after m1 left")
	time.Sleep(300 * time.Millisecond)
	m2.close(t)
	harness.CheckExact(t, wr.wanted(t, parts), ledger.All())

	offs, err := cl.OffsetFetch(harness.Ctx(t, 15*time.Second), &kafka.OffsetFetchRequest{GroupID: group,
		Topics: map[string][]int{topic: {0, 1, 2, 3}}})
	if err != nil || offs.Error != nil {
		t.Fatalf("offset fetch: %v / %v", err, offs)
	}
	for _, p := range offs.Topics[topic] {
		if p.Error != nil || p.CommittedOffset != 75 {
			t.Fatalf("committed %s[%d] = %d (%v), want 75", topic, p.Partition, p.CommittedOffset, p.Error)
		}
	}
	if len(offs.Topics[topic]) != parts {
		t.Fatalf("offset fetch returned %d partitions, want %d", len(offs.Topics[topic]), parts)
	}
}
