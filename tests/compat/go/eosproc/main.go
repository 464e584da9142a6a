// Command eosproc is an exactly-once consume -> transform -> produce processor with
// franz-go's GroupTransactSession, run by tests/system/test_cluster_txn.py. It is the
// same processor as the librdkafka one in tests/compat/test_eos_pipeline.py
// (_process_main) and tests/compat/java EosProcessor, with the same spec and events.
//
// The session (read_committed, RequireStableFetchOffsets, start at the earliest offset,
// manual partitioner) first loads its producer id: InitProducerId with the transactional
// id fences an earlier incarnation and resolves its open transaction, before the group is
// joined (the topic is added only then), so the offsets fetched on assignment are stable.
// Per polled batch (at most `batch` records): Begin, one record "out:"+value to the same
// partition of DST per input, ProduceSync, emit produced, sleep pause_s, End(TryCommit)
// (which flushes, commits the polled offsets with TxnOffsetCommit and ends the
// transaction), emit committed. End may abort instead (a rebalance, or an abortable
// commit error): the session then rewinds to the committed offsets and the batch is
// redone; that prints aborted. Errors in fetches are logged to stderr and polling goes
// on (kgo retries them).
//
// One JSON line per event on stdout (key "event"):
//
//	started  produced {n}  committed {n, offsets: {"partition": next offset}}  aborted {n}
//	error {error}  closed
//
// Exit codes: 0 after SIGTERM (the open transaction is finished, the session closed,
// closed printed); 3 after an error line (the test starts a successor with the same
// transactional id); 2 on a bad argument. Client warnings go to stderr.
//
// Usage: eosproc SPEC, SPEC = {"bootstrap","group","src","dst","txn_id","batch",
// "pause_s","name"} as one JSON object.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type spec struct {
	Bootstrap string  `json:"bootstrap"`
	Group     string  `json:"group"`
	Src       string  `json:"src"`
	Dst       string  `json:"dst"`
	TxnID     string  `json:"txn_id"`
	Batch     int     `json:"batch"`
	PauseS    float64 `json:"pause_s"`
	Name      string  `json:"name"`
}

const waitS = 60 * time.Second

func emit(ev map[string]any) {
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

func fail(err error) {
	emit(map[string]any{"event": "error", "error": err.Error()})
	os.Exit(3)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: eosproc SPEC_JSON")
		os.Exit(2)
	}
	var sp spec
	if err := json.Unmarshal([]byte(os.Args[1]), &sp); err != nil || sp.Batch <= 0 {
		fmt.Fprintf(os.Stderr, "eosproc: bad spec %q: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	if sp.Name == "" {
		sp.Name = "eos-franz"
	}
	var stop atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		stop.Store(true)
	}()

	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(strings.Split(sp.Bootstrap, ",")...),
		kgo.ClientID(sp.Name),
		kgo.TransactionalID(sp.TxnID), kgo.TransactionTimeout(10*time.Second),
		kgo.ConsumerGroup(sp.Group),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.RequireStableFetchOffsets(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(time.Second),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelWarn, nil)))
	if err != nil {
		fail(fmt.Errorf("NewGroupTransactSession: %w", err))
	}
	cl := sess.Client()
	ctx, cancel := context.WithTimeout(context.Background(), waitS)
	_, _, err = cl.ProducerID(ctx)
	cancel()
	if err != nil {
		fail(fmt.Errorf("init producer id: %w", err))
	}
	cl.AddConsumeTopics(sp.Src)
	emit(map[string]any{"event": "started"})

	for !stop.Load() {
		pctx, pcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := sess.PollRecords(pctx, sp.Batch)
		pcancel()
		// Errors in fetches are the client's retries made visible (a broker down: "unable
		// to dial", a group join that failed); kgo keeps retrying, so they are only logged,
		// as the librdkafka processor skips messages with an error. A closed client is fatal.
		var closed error
		fs.EachError(func(t string, p int32, err error) {
			switch {
			case errors.Is(err, kgo.ErrClientClosed):
				closed = err
			case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			default:
				fmt.Fprintf(os.Stderr, "eosproc: fetch %s[%d]: %v (retrying)\n", t, p, err)
			}
		})
		if closed != nil {
			fail(fmt.Errorf("poll: %w", closed))
		}
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		if err := sess.Begin(); err != nil {
			fail(fmt.Errorf("begin: %w", err))
		}
		outs := make([]*kgo.Record, 0, len(recs))
		next := map[string]int64{}
		for _, r := range recs {
			outs = append(outs, &kgo.Record{Topic: sp.Dst, Partition: r.Partition, Key: r.Key,
				Value: append([]byte("out:"), r.Value...)})
			next[strconv.Itoa(int(r.Partition))] = r.Offset + 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitS)
		err := sess.ProduceSync(ctx, outs...).FirstErr()
		cancel()
		if err != nil {
			fail(fmt.Errorf("produce: %w", err))
		}
		emit(map[string]any{"event": "produced", "n": len(recs)})
		time.Sleep(time.Duration(sp.PauseS * float64(time.Second)))
		ctx, cancel = context.WithTimeout(context.Background(), waitS)
		committed, err := sess.End(ctx, kgo.TryCommit)
		cancel()
		if err != nil {
			fail(fmt.Errorf("end: %w", err))
		}
		if committed {
			emit(map[string]any{"event": "committed", "n": len(recs), "offsets": next})
		} else {
			emit(map[string]any{"event": "aborted", "n": len(recs)})
		}
	}
	sess.Close()
	emit(map[string]any{"event": "closed"})
}
