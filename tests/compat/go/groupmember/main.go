// Command groupmember is one consumer group member with franz-go (kgo), driven by
// tests/system/test_cluster_groups.py. It prints the same events as
// tests/system/group_member.py (librdkafka) and tests/compat/java GroupMember.
//
// It joins GROUP on TOPIC with franz-go's default cooperative-sticky balancer, auto
// commit off and BlockRebalanceOnPoll, and loops: poll, report the records, commit the
// next offsets synchronously, allow a rebalance. OnPartitionsRevoked commits what it
// consumed first. SIGTERM: leave the loop, Close (revoke, commit, LeaveGroup), exit 0.
// One JSON line per event on stdout, t = wall-clock seconds:
//
//	started  assigned {parts}  revoked {parts}  lost {parts}  recs {p,offs}
//	commit {offs,ok,err} (ok false: outcome unknown)  closed  error {err}
//
// Usage: groupmember BOOTSTRAP GROUP TOPIC NAME
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var out sync.Mutex

func emit(ev string, kv map[string]any) {
	if kv == nil {
		kv = map[string]any{}
	}
	kv["ev"] = ev
	kv["t"] = float64(time.Now().UnixNano()) / 1e9
	b, err := json.Marshal(kv)
	if err != nil {
		panic(err)
	}
	out.Lock()
	defer out.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

type member struct {
	topic    string
	cl       *kgo.Client
	mu       sync.Mutex
	consumed map[int32]int64 // partition -> next offset, for the partitions held now
}

func sorted(ps []int32) []int32 {
	ps = append(make([]int32, 0, len(ps)), ps...) // never nil: JSON [] rather than null
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// commit commits the next offsets of ps that this member consumed, synchronously.
func (m *member) commit(ctx context.Context, ps []int32) {
	m.mu.Lock()
	offs := map[int32]kgo.EpochOffset{}
	shown := map[string]int64{}
	for _, p := range ps {
		if next, ok := m.consumed[p]; ok {
			offs[p] = kgo.EpochOffset{Epoch: -1, Offset: next}
			shown[fmt.Sprint(p)] = next
		}
	}
	m.mu.Unlock()
	if len(offs) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var cerr error
	m.cl.CommitOffsetsSync(cctx, map[string]map[int32]kgo.EpochOffset{m.topic: offs},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				cerr = err
				return
			}
			var bad []string
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
						bad = append(bad, fmt.Sprintf("%d: %v", p.Partition, e))
					}
				}
			}
			if len(bad) > 0 {
				cerr = errors.New(strings.Join(bad, "; "))
			}
		})
	if cerr != nil {
		emit("commit", map[string]any{"offs": shown, "ok": false, "err": cerr.Error()})
	} else {
		emit("commit", map[string]any{"offs": shown, "ok": true, "err": nil})
	}
}

func (m *member) forget(ps []int32) {
	m.mu.Lock()
	for _, p := range ps {
		delete(m.consumed, p)
	}
	m.mu.Unlock()
}

func run(bootstrap, group, topic, name string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	m := &member{topic: topic, consumed: map[int32]int64{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.ClientID(name),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(500*time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
		kgo.RequestTimeoutOverhead(5*time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			emit("assigned", map[string]any{"parts": sorted(a[topic])})
		}),
		kgo.OnPartitionsRevoked(func(c context.Context, _ *kgo.Client, r map[string][]int32) {
			ps := sorted(r[topic])
			m.commit(context.Background(), ps)
			m.forget(ps)
			emit("revoked", map[string]any{"parts": ps})
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, l map[string][]int32) {
			ps := sorted(l[topic])
			m.forget(ps)
			emit("lost", map[string]any{"parts": ps})
		}),
	)
	if err != nil {
		return err
	}
	m.cl = cl
	emit("started", nil)
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := cl.PollRecords(pctx, 500)
		cancel()
		byPart := map[int32][]int64{}
		fs.EachRecord(func(r *kgo.Record) {
			byPart[r.Partition] = append(byPart[r.Partition], r.Offset)
		})
		var ps []int32
		for p, offs := range byPart {
			ps = append(ps, p)
			m.mu.Lock()
			m.consumed[p] = offs[len(offs)-1] + 1
			m.mu.Unlock()
		}
		ps = sorted(ps)
		for _, p := range ps {
			emit("recs", map[string]any{"p": p, "offs": byPart[p]})
		}
		if len(ps) > 0 {
			m.commit(context.Background(), ps)
		}
		cl.AllowRebalance()
		if len(ps) > 0 {
			time.Sleep(100 * time.Millisecond) // "processing": keeps the commit rate near the other members'
		}
	}
	cl.Close()
	emit("closed", nil)
	return nil
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: groupmember BOOTSTRAP GROUP TOPIC NAME")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		emit("error", map[string]any{"err": err.Error()})
		os.Exit(3)
	}
}
