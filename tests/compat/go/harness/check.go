// Shared test helpers: one broker per test package (Main/Shared), seeded
// payloads, unique topic names, bounded waits and contexts, and CheckExact,
// the exact result check every Go compat test uses: every produced record
// consumed once, byte for byte, in offset order per partition, nothing extra.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	sharedMu  sync.Mutex
	shared    *Broker
	sharedErr error
)

// Shared returns the package's shared broker (started on first use with
// DefaultOverrides); Main stops it after the tests and checks its exit code.
func Shared(t testing.TB) *Broker {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		b, err := NewUnstarted(nil)
		if err == nil {
			err = b.Start()
		}
		shared, sharedErr = b, err
	}
	if sharedErr != nil {
		t.Fatalf("shared broker: %v", sharedErr)
	}
	if !shared.Alive() {
		t.Fatalf("shared broker is not running:\n%s", shared.LogTail())
	}
	return shared
}

// Main runs the package's tests, then stops the shared broker: a broker that
// died or did not exit 0 on SIGTERM fails the run.
func Main(m *testing.M) {
	code := m.Run()
	sharedMu.Lock()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: shared broker: %v\n", err)
			code = 1
		} else if code != 0 {
			fmt.Fprintf(os.Stderr, "shared broker log (tail):\n%s\n", shared.LogTail())
		}
		shared.RemoveDir()
	}
	sharedMu.Unlock()
	os.Exit(code)
}

// Rand is seeded from SPOOL_TEST_SEED or the clock; the seed is logged so a
// failure can be replayed.
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("SPOOL_TEST_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("bad SPOOL_TEST_SEED %q", s)
		}
		seed = v
	}
	t.Logf("seed %d (replay with SPOOL_TEST_SEED=%d)", seed, seed)
	return rand.New(rand.NewSource(seed))
}

// Topic is a fresh topic (or group) name for this test.
func Topic(t testing.TB, r *rand.Rand, what string) string {
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	if len(name) > 60 {
		name = name[:60]
	}
	return fmt.Sprintf("%s-%s-%08x", name, what, r.Uint32())
}

// Payload is a unique, compressible value for record i: a seeded word
// repeated, so every codec really shrinks the batch.
func Payload(r *rand.Rand, tag string, i int) []byte {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	word := make([]byte, 8)
	for j := range word {
		word[j] = letters[r.Intn(len(letters))]
	}
	return []byte(fmt.Sprintf("%s-%06d-%s", tag, i, bytes.Repeat(word, 16+r.Intn(40))))
}

// Ctx is a context that ends after d or when the test ends, whichever is first.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// WaitFor polls cond every 20 ms until it holds or d passes.
func WaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Want is a produced record: Partition/Offset are -1 when the producer did
// not report them.
type Want struct {
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
}

// Got is a consumed record, in the order the test saw it.
type Got struct {
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	Member    string
}

// Ledger collects consumed records from several goroutines.
type Ledger struct {
	mu   sync.Mutex
	recs []Got
}

func (l *Ledger) Add(g ...Got) {
	l.mu.Lock()
	l.recs = append(l.recs, g...)
	l.mu.Unlock()
}

func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recs)
}

func (l *Ledger) All() []Got {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Got(nil), l.recs...)
}

// CountBy counts records per member.
func (l *Ledger) CountBy() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := map[string]int{}
	for _, g := range l.recs {
		m[g.Member]++
	}
	return m
}

// CheckExact fails t unless got holds every wanted record exactly once (values
// are unique), with the same key, partition and offset (where known), and each
// partition was consumed in strictly increasing offset order, in the order it
// was produced.
func CheckExact(t testing.TB, want []Want, got []Got) {
	t.Helper()
	byValue := map[string]int{}
	for i, w := range want {
		if _, dup := byValue[string(w.Value)]; dup {
			t.Fatalf("test bug: duplicate produced value %q", short(w.Value))
		}
		byValue[string(w.Value)] = i
	}
	var problems []string
	report := func(f string, a ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(f, a...))
		}
	}
	seen := make([]int, len(want))
	lastOffset := map[int32]int64{}
	perPartition := map[int32][]Got{}
	for _, g := range got {
		i, ok := byValue[string(g.Value)]
		if !ok {
			report("unexpected record p%d@%d value %q", g.Partition, g.Offset, short(g.Value))
			continue
		}
		seen[i]++
		if seen[i] == 2 {
			report("duplicate record p%d@%d value %q (member %s)", g.Partition, g.Offset, short(g.Value), g.Member)
		}
		w := want[i]
		if !bytes.Equal(w.Key, g.Key) {
			report("p%d@%d: key %q, want %q", g.Partition, g.Offset, short(g.Key), short(w.Key))
		}
		if w.Partition >= 0 && w.Partition != g.Partition {
			report("value %q in partition %d, want %d", short(g.Value), g.Partition, w.Partition)
		}
		if w.Offset >= 0 && w.Offset != g.Offset {
			report("value %q at offset %d, want %d", short(g.Value), g.Offset, w.Offset)
		}
		if last, ok := lastOffset[g.Partition]; ok && g.Offset <= last {
			report("partition %d consumed out of order: offset %d after %d", g.Partition, g.Offset, last)
		}
		lastOffset[g.Partition] = g.Offset
		perPartition[g.Partition] = append(perPartition[g.Partition], g)
	}
	missing := 0
	for i, n := range seen {
		if n == 0 {
			missing++
			if missing <= 5 {
				report("missing record %q (p%d@%d)", short(want[i].Value), want[i].Partition, want[i].Offset)
			}
		}
	}
	// Produce order per partition must be offset order.
	wantOrder := map[int32][]string{}
	for _, w := range want {
		if w.Partition >= 0 {
			wantOrder[w.Partition] = append(wantOrder[w.Partition], string(w.Value))
		}
	}
	for p, gs := range perPartition {
		wo, ok := wantOrder[p]
		if !ok || missing > 0 || len(gs) != len(wo) {
			continue
		}
		sort.Slice(gs, func(a, b int) bool { return gs[a].Offset < gs[b].Offset })
		for j := range gs {
			if string(gs[j].Value) != wo[j] {
				report("partition %d: record #%d by offset is %q, produced %q", p, j, short(gs[j].Value), short([]byte(wo[j])))
				break
			}
		}
	}
	if len(got) != len(want) {
		report("consumed %d records, produced %d (missing %d)", len(got), len(want), missing)
	}
	if len(problems) > 0 {
		t.Fatalf("exact check failed:\n  %s", strings.Join(problems, "\n  "))
	}
}

func short(b []byte) string {
	if len(b) > 24 {
		return string(b[:24]) + "..."
	}
	return string(b)
}
