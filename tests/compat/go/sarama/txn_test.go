// sarama transactional producer: six transactions over three partitions,
// two of them aborted; a read_committed consumer sees exactly the committed
// messages at their acknowledged offsets, read_uncommitted sees all of them.
package sarama

import (
	"testing"

	"github.com/IBM/sarama"

	"github.com/spool/compat-go/harness"
)

func TestSaramaTransactionalProducer(t *testing.T) {
	b := harness.Shared(t)
	rng := harness.Rand(t)
	topic := harness.Topic(t, rng, "t")
	createTopic(t, b.Bootstrap(), topic, 3)
	cfg := producerConfig(sarama.CompressionSnappy)
	cfg.Producer.Transaction.ID = harness.Topic(t, rng, "txn")
	p, err := sarama.NewSyncProducer([]string{b.Bootstrap()}, cfg)
	if err != nil {
		t.Fatalf("transactional producer: %v", err)
	}
	defer p.Close()
	if !p.IsTransactional() {
		t.Fatalf("producer is not transactional")
	}
	var committed, all []harness.Want
	for round := 0; round < 6; round++ {
		abort := round == 1 || round == 4
		if err := p.BeginTxn(); err != nil {
			t.Fatalf("round %d: begin: %v", round, err)
		}
		msgs := messages(t, rng, topic, "txn", 50, 3, round*50, func(j int) []byte { return harness.Payload(rng, "txn", j) })
		if err := p.SendMessages(msgs); err != nil {
			t.Fatalf("round %d: send: %v", round, err)
		}
		want := wantOf(t, msgs)
		all = append(all, want...)
		if abort {
			err = p.AbortTxn()
		} else {
			err = p.CommitTxn()
			committed = append(committed, want...)
		}
		if err != nil {
			t.Fatalf("round %d: end (abort=%v): %v", round, abort, err)
		}
	}
	harness.CheckExact(t, committed, readBackIsolated(t, b.Bootstrap(), topic, 3, len(committed), sarama.ReadCommitted))
	harness.CheckExact(t, all, readBack(t, b.Bootstrap(), topic, 3, len(all)))
}
