// franz-go GroupTransactSession: consume-transform-produce with exactly-once.
// Some transactions are aborted on purpose (with an extra marker record); a
// read_committed reader of the output must see every input exactly once, in
// order per partition, and never aborted data; read_uncommitted sees it.
package franz

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/spool/compat-go/harness"
)

func TestFranzGroupTransactSessionExactlyOnce(t *testing.T) {
	b := harness.Shared(t)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	in, out := harness.Topic(t, rng, "in"), harness.Topic(t, rng, "out")
	group, txnID := harness.Topic(t, rng, "g"), harness.Topic(t, rng, "txn")
	const parts, n = 3, 150
	createTopic(t, adm, in, parts, nil)
	createTopic(t, adm, out, parts, nil)
	prod := newClient(t, b.Bootstrap(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	inputs := produceSync(t, prod, records(rng, in, "in", n, parts, 0))

	sess, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(b.Bootstrap()),
		kgo.TransactionalID(txnID), kgo.TransactionTimeout(60*time.Second),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(in),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.RequireStableFetchOffsets(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(300*time.Millisecond))
	if err != nil {
		t.Fatalf("NewGroupTransactSession: %v", err)
	}
	defer sess.Close()

	done, aborted, round, produced := 0, 0, 0, 0
	deadline := time.Now().Add(90 * time.Second)
	for done < n {
		if time.Now().After(deadline) {
			t.Fatalf("transformed %d of %d inputs in 90 s (%d rounds, %d aborted)", done, n, round, aborted)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := sess.PollRecords(ctx, 20)
		cancel()
		fs.EachError(func(tp string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("fetch %s[%d]: %v", tp, p, err)
			}
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		round++
		if err := sess.Begin(); err != nil {
			t.Fatalf("begin: %v", err)
		}
		abort := round%3 == 1 // rounds 1, 4, 7... are aborted and redone
		var outs []*kgo.Record
		for _, r := range recs {
			outs = append(outs, &kgo.Record{Topic: out, Partition: r.Partition, Key: r.Key, Value: append([]byte("out:"), r.Value...)})
		}
		if abort {
			outs = append(outs, &kgo.Record{Topic: out, Partition: recs[0].Partition, Value: []byte("ABORTED")})
		}
		// ProduceSync: the data is in the log before End (an abort would
		// otherwise drop still-buffered records before they were sent).
		pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := sess.ProduceSync(pctx, outs...).FirstErr()
		pcancel()
		if err != nil {
			t.Fatalf("round %d: produce: %v", round, err)
		}
		produced += len(outs)
		ectx, ecancel := context.WithTimeout(context.Background(), 30*time.Second)
		committed, err := sess.End(ectx, kgo.TransactionEndTry(!abort))
		ecancel()
		if err != nil {
			t.Fatalf("round %d: end (commit=%v): %v", round, !abort, err)
		}
		switch {
		case abort && committed:
			t.Fatalf("round %d: End(TryAbort) reported committed", round)
		case abort:
			aborted++
		case committed:
			done += len(recs)
		default:
			t.Logf("round %d: commit fell back to abort (rebalance); redone", round)
		}
	}
	if aborted == 0 {
		t.Fatalf("no transaction was aborted")
	}
	t.Logf("%d rounds, %d aborted", round, aborted)

	var want []harness.Want
	for _, w := range inputs {
		want = append(want, harness.Want{Partition: w.Partition, Offset: -1, Key: w.Key, Value: append([]byte("out:"), w.Value...)})
	}
	committedOut := consumeFromStart(t, b.Bootstrap(), out, n, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	harness.CheckExact(t, want, gots(committedOut, "read_committed"))

	// read_uncommitted also returns the aborted batches, markers included.
	var markers int
	all := consumeFromStart(t, b.Bootstrap(), out, produced, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	for _, r := range all {
		if bytes.Equal(r.Value, []byte("ABORTED")) {
			markers++
		}
	}
	if len(all) != produced || markers != aborted {
		t.Fatalf("read_uncommitted saw %d records with %d aborted markers, want %d with %d", len(all), markers, produced, aborted)
	}
	checkCommitted(t, adm, group, in, parts, n/parts)
}
