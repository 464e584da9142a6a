// franz-go consumer groups: the cooperative-sticky balancer with two members
// (rebalance on join and on leave, every record exactly once with commits),
// and committed offsets that survive a clean restart and a kill -9.
package franz

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/spool/compat-go/harness"
)

// member is one group consumer that polls, commits each poll synchronously
// and only then records what it consumed (BlockRebalanceOnPoll keeps the
// rebalance waiting until the commit is done).
type member struct {
	name     string
	cl       *kgo.Client
	mu       sync.Mutex
	assigned map[int32]bool
	revoked  [][]int32 // each revoke callback's partitions
	errs     []error
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
	stopped  bool
}

func startMember(t *testing.T, name, bootstrap, group, topic string, ledger *harness.Ledger) *member {
	m := &member{name: name, assigned: map[int32]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap),
		kgo.ClientID(name),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(300*time.Millisecond),
		kgo.RebalanceTimeout(20*time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			m.mu.Lock()
			for _, p := range a[topic] {
				m.assigned[p] = true
			}
			m.mu.Unlock()
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
			m.mu.Lock()
			if len(r[topic]) > 0 {
				m.revoked = append(m.revoked, append([]int32(nil), r[topic]...))
			}
			for _, p := range r[topic] {
				delete(m.assigned, p)
			}
			m.mu.Unlock()
		}),
	)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	m.cl = cl
	t.Cleanup(func() { m.shutdown() }) // also when the test fails half-way
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			fs := cl.PollRecords(ctx, 50)
			cancel()
			fs.EachError(func(tp string, p int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, kgo.ErrClientClosed) {
					m.addErr(fmt.Errorf("fetch %s[%d]: %w", tp, p, err))
				}
			})
			if recs := fs.Records(); len(recs) > 0 {
				cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
				err := cl.CommitRecords(cctx, recs...)
				ccancel()
				if err != nil {
					m.addErr(fmt.Errorf("commit: %w", err))
				} else {
					ledger.Add(gots(recs, name)...)
				}
			}
			cl.AllowRebalance()
		}
	}()
	return m
}

func (m *member) addErr(err error) {
	m.mu.Lock()
	m.errs = append(m.errs, err)
	m.mu.Unlock()
}

func (m *member) partitions() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []int32
	for p := range m.assigned {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// shutdown stops polling (waiting up to 10 s) and closes the client, which
// leaves the group; once. It reports whether the poll loop ended in time.
func (m *member) shutdown() bool {
	m.once.Do(func() {
		close(m.stop)
		select {
		case <-m.done:
			m.stopped = true
		case <-time.After(10 * time.Second):
		}
		m.cl.Close()
	})
	return m.stopped
}

// close shuts the member down and fails t on any error it met.
func (m *member) close(t *testing.T) {
	if !m.shutdown() {
		t.Errorf("%s: poll loop did not stop", m.name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, err := range m.errs {
		t.Errorf("%s: %v", m.name, err)
	}
}

func TestFranzCooperativeGroupExactlyOnce(t *testing.T) {
	b := harness.Shared(t)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	topic, group := harness.Topic(t, rng, "t"), harness.Topic(t, rng, "g")
	const parts = 6
	createTopic(t, adm, topic, parts, nil)
	prod := newClient(t, b.Bootstrap(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ledger := &harness.Ledger{}
	var want []harness.Want
	waitCount := func(n int, what string) {
		if !harness.WaitFor(45*time.Second, func() bool { return ledger.Len() >= n }) {
			t.Fatalf("%s: consumed %d of %d records", what, ledger.Len(), n)
		}
	}

	want = append(want, produceSync(t, prod, records(rng, topic, "a", 120, parts, 0))...)
	m1 := startMember(t, "m1", b.Bootstrap(), group, topic, ledger)
	waitCount(120, "m1 alone")
	if ps := m1.partitions(); len(ps) != parts {
		t.Fatalf("m1 alone owns %v, want all %d partitions", ps, parts)
	}

	// Second member joins: cooperative-sticky moves half the partitions and
	// m1 keeps the other half throughout (no eager revoke-everything).
	m2 := startMember(t, "m2", b.Bootstrap(), group, topic, ledger)
	if !harness.WaitFor(30*time.Second, func() bool {
		return len(m1.partitions()) == parts/2 && len(m2.partitions()) == parts/2
	}) {
		t.Fatalf("after m2 joined: m1 owns %v, m2 owns %v; want %d each", m1.partitions(), m2.partitions(), parts/2)
	}
	m1.mu.Lock()
	revokes := append([][]int32(nil), m1.revoked...)
	m1.mu.Unlock()
	if len(revokes) != 1 || len(revokes[0]) != parts/2 {
		t.Fatalf("m1 revokes on join %v, want one revoke of %d partitions (cooperative)", revokes, parts/2)
	}
	seen := map[int32]bool{}
	for _, p := range append(m1.partitions(), m2.partitions()...) {
		seen[p] = true
	}
	if len(seen) != parts {
		t.Fatalf("assignment overlaps: m1 %v m2 %v", m1.partitions(), m2.partitions())
	}
	before := ledger.CountBy()
	want = append(want, produceSync(t, prod, records(rng, topic, "b", 120, parts, 120))...)
	waitCount(240, "two members")
	after := ledger.CountBy()
	if after["m1"]-before["m1"] != 60 || after["m2"]-before["m2"] != 60 {
		t.Fatalf("second batch split m1 %d / m2 %d, want 60 / 60 (3 partitions each)",
			after["m1"]-before["m1"], after["m2"]-before["m2"])
	}

	// m1 leaves: m2 gets every partition.
	m1.close(t)
	if !harness.WaitFor(30*time.Second, func() bool { return len(m2.partitions()) == parts }) {
		t.Fatalf("after m1 left m2 owns %v, want all %d", m2.partitions(), parts)
	}
	want = append(want, produceSync(t, prod, records(rng, topic, "c", 120, parts, 240))...)
	waitCount(360, "m2 after m1 left")
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive now
	m2.close(t)
	harness.CheckExact(t, want, ledger.All())
	if n := ledger.CountBy()["m2"] - after["m2"]; n != 120 {
		t.Fatalf("m2 consumed %d records of the last batch, want 120", n)
	}
	checkCommitted(t, adm, group, topic, parts, 60)
}

// checkCommitted asserts the group's committed offset of every partition is
// the partition's end offset, perPartition.
func checkCommitted(t *testing.T, adm *kadm.Client, group, topic string, parts int32, perPartition int64) {
	t.Helper()
	offs := fetchOffsetsRetrying(t, adm, group)
	for p := int32(0); p < parts; p++ {
		o, ok := offs.Lookup(topic, p)
		if !ok || o.Err != nil || o.At != perPartition {
			t.Fatalf("group %s %s[%d] committed %+v (found %v), want %d", group, topic, p, o, ok, perPartition)
		}
	}
}

// fetchOffsetsRetrying fetches the group's committed offsets, retrying for
// up to 30 s while the client reconnects or the coordinator loads after a
// restart.
func fetchOffsetsRetrying(t *testing.T, adm *kadm.Client, group string) kadm.OffsetResponses {
	t.Helper()
	var offs kadm.OffsetResponses
	var err error
	if !harness.WaitFor(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		offs, err = adm.FetchOffsets(ctx, group)
		return err == nil && offs.Error() == nil
	}) {
		t.Fatalf("fetch offsets of %s: %v / %v", group, err, offs.Error())
	}
	return offs
}

// consumeCommitN consumes exactly n records in group (PollRecords with a cap),
// commits them, and leaves the group.
func consumeCommitN(t *testing.T, bootstrap, group, topic string, n int) []harness.Got {
	t.Helper()
	cl := newClient(t, bootstrap, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(300*time.Millisecond))
	var got []*kgo.Record
	deadline := time.Now().Add(45 * time.Second)
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("group %s consumed %d of %d", group, len(got), n)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		fs := cl.PollRecords(ctx, n-len(got))
		cancel()
		fs.EachError(func(tp string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("fetch %s[%d]: %v", tp, p, err)
			}
		})
		got = append(got, fs.Records()...)
	}
	if err := cl.CommitRecords(harness.Ctx(t, 20*time.Second), got...); err != nil {
		t.Fatalf("commit: %v", err)
	}
	cl.Close()
	return gots(got, group)
}

func TestFranzCommittedOffsetsSurviveRestart(t *testing.T) {
	b := harness.New(t, nil)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	topic, group := harness.Topic(t, rng, "t"), harness.Topic(t, rng, "g")
	createTopic(t, adm, topic, 2, nil)
	prod := newClient(t, b.Bootstrap(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	want := produceSync(t, prod, records(rng, topic, "a", 100, 2, 0))

	first := consumeCommitN(t, b.Bootstrap(), group, topic, 60)
	committed := map[int32]int64{}
	for _, g := range first {
		committed[g.Partition] = g.Offset + 1
	}
	if err := b.Restart(); err != nil { // SIGTERM (exit 0 asserted), same dir and port
		t.Fatal(err)
	}
	offs := fetchOffsetsRetrying(t, adm, group)
	for p, at := range committed {
		if o, ok := offs.Lookup(topic, p); !ok || o.At != at {
			t.Fatalf("after restart %s[%d] committed %+v, want %d", topic, p, o, at)
		}
	}
	second := consumeCommitN(t, b.Bootstrap(), group, topic, 40)
	harness.CheckExact(t, want, append(first, second...))

	// kill -9 after acknowledged commits: they are durable too.
	b.Kill9()
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	checkCommitted(t, adm, group, topic, 2, 50)
	more := produceSync(t, prod, records(rng, topic, "b", 40, 2, 100))
	third := consumeCommitN(t, b.Bootstrap(), group, topic, 40)
	harness.CheckExact(t, more, third)
	checkCommitted(t, adm, group, topic, 2, 70)
}
