// sarama ConsumerGroup: two members (range strategy, eager rebalance) on a
// 4-partition topic; a rebalance when the second joins and when one leaves;
// every message consumed exactly once with MarkMessage + Commit.
package sarama

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/spool/compat-go/harness"
)

type groupMember struct {
	name   string
	cg     sarama.ConsumerGroup
	ledger *harness.Ledger
	cancel context.CancelFunc
	done   chan struct{}

	once   sync.Once
	closed error

	mu     sync.Mutex
	gen    int32
	claims []int32
	errs   []error
}

func (m *groupMember) Setup(s sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen = s.GenerationID()
	m.claims = nil
	for _, ps := range s.Claims() {
		m.claims = append(m.claims, ps...)
	}
	sort.Slice(m.claims, func(i, j int) bool { return m.claims[i] < m.claims[j] })
	return nil
}

// Cleanup commits what was marked before the partitions are given up.
func (m *groupMember) Cleanup(s sarama.ConsumerGroupSession) error {
	s.Commit()
	m.mu.Lock()
	m.claims = nil
	m.mu.Unlock()
	return nil
}

func (m *groupMember) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for {
		select {
		case <-s.Context().Done():
			return nil
		case msg, ok := <-c.Messages():
			if !ok {
				return nil
			}
			m.ledger.Add(harness.Got{Partition: msg.Partition, Offset: msg.Offset, Key: msg.Key, Value: msg.Value, Member: m.name})
			s.MarkMessage(msg, "")
			if len(c.Messages()) == 0 {
				s.Commit()
			}
		}
	}
}

func (m *groupMember) state() (int32, []int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen, append([]int32(nil), m.claims...)
}

func startGroupMember(t *testing.T, name, bootstrap, group, topic string, ledger *harness.Ledger) *groupMember {
	cfg := config(name)
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Return.Errors = true
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 300 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	cg, err := sarama.NewConsumerGroup([]string{bootstrap}, group, cfg)
	if err != nil {
		t.Fatalf("%s: consumer group: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &groupMember{name: name, cg: cg, ledger: ledger, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(func() { m.shutdown() }) // also when the test fails half-way
	go func() {
		for err := range cg.Errors() {
			m.mu.Lock()
			m.errs = append(m.errs, err)
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{topic}, m); err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) {
				m.mu.Lock()
				m.errs = append(m.errs, err)
				m.mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	return m
}

// shutdown cancels Consume (waiting up to 20 s for it to return) and closes
// the group client, which leaves the group; once.
func (m *groupMember) shutdown() error {
	m.once.Do(func() {
		m.cancel()
		select {
		case <-m.done:
		case <-time.After(20 * time.Second):
			m.closed = errors.New("Consume did not return within 20 s")
		}
		if err := m.cg.Close(); err != nil && m.closed == nil {
			m.closed = err
		}
	})
	return m.closed
}

// close shuts the member down and fails t on any error it met.
func (m *groupMember) close(t *testing.T) {
	if err := m.shutdown(); err != nil {
		t.Errorf("%s: %v", m.name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, err := range m.errs {
		t.Errorf("%s: %v", m.name, err)
	}
}

func TestSaramaConsumerGroupExactlyOnce(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	topic, group := harness.Topic(t, rng, "t"), harness.Topic(t, rng, "g")
	const parts = 4
	createTopic(t, b.Bootstrap(), topic, parts)
	p, err := sarama.NewSyncProducer([]string{b.Bootstrap()}, producerConfig(sarama.CompressionNone))
	if err != nil {
		t.Fatalf("producer: %v", err)
	}
	defer p.Close()
	var want []harness.Want
	produce := func(tag string, start int) {
		msgs := messages(t, rng, topic, tag, 100, parts, start, func(j int) []byte { return harness.Payload(rng, tag, j) })
		if err := p.SendMessages(msgs); err != nil {
			t.Fatalf("produce: %v", err)
		}
		want = append(want, wantOf(t, msgs)...)
	}
	ledger := &harness.Ledger{}
	waitCount := func(n int, what string) {
		if !harness.WaitFor(45*time.Second, func() bool { return ledger.Len() >= n }) {
			t.Fatalf("%s: consumed %d of %d", what, ledger.Len(), n)
		}
	}

	produce("a", 0)
	m1 := startGroupMember(t, "m1", b.Bootstrap(), group, topic, ledger)
	waitCount(100, "m1 alone")
	if _, c := m1.state(); len(c) != parts {
		t.Fatalf("m1 alone claims %v, want %d partitions", c, parts)
	}

	m2 := startGroupMember(t, "m2", b.Bootstrap(), group, topic, ledger)
	if !harness.WaitFor(30*time.Second, func() bool {
		g1, c1 := m1.state()
		g2, c2 := m2.state()
		return g1 == g2 && len(c1) == parts/2 && len(c2) == parts/2
	}) {
		g1, c1 := m1.state()
		g2, c2 := m2.state()
		t.Fatalf("after m2 joined: m1 gen %d claims %v, m2 gen %d claims %v", g1, c1, g2, c2)
	}
	before := ledger.CountBy()
	produce("b", 100)
	waitCount(200, "two members")
	after := ledger.CountBy()
	if after["m1"]-before["m1"] != 50 || after["m2"]-before["m2"] != 50 {
		t.Fatalf("second batch split m1 %d / m2 %d, want 50 / 50", after["m1"]-before["m1"], after["m2"]-before["m2"])
	}

	m1.close(t)
	if !harness.WaitFor(30*time.Second, func() bool { _, c := m2.state(); return len(c) == parts }) {
		_, c := m2.state()
		t.Fatalf("after m1 left m2 claims %v, want all %d", c, parts)
	}
	produce("c", 200)
	waitCount(300, "m2 after m1 left")
	time.Sleep(300 * time.Millisecond)
	m2.close(t)
	harness.CheckExact(t, want, ledger.All())

	// Every partition's committed offset is its end (75 = 300 / 4).
	adm, err := sarama.NewClusterAdmin([]string{b.Bootstrap()}, config("admin"))
	if err != nil {
		t.Fatalf("admin: %v", err)
	}
	defer adm.Close()
	offs, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2, 3}})
	if err != nil {
		t.Fatalf("list group offsets: %v", err)
	}
	for part := int32(0); part < parts; part++ {
		blk := offs.GetBlock(topic, part)
		if blk == nil || blk.Err != sarama.ErrNoError || blk.Offset != 75 {
			t.Fatalf("committed %s[%d] = %+v, want 75", topic, part, blk)
		}
	}
}
