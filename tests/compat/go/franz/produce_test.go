// franz-go (kgo) produce: every codec, idempotent, acks=all; consumed back
// byte for byte (key, value, headers) with the batch's codec and producer id.
package franz

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/spool/compat-go/harness"
)

func TestFranzProduceEveryCodec(t *testing.T) {
	b := harness.Shared(t)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	codecs := []struct {
		name  string
		codec kgo.CompressionCodec
		attr  uint8
	}{
		{"none", kgo.NoCompression(), 0},
		{"gzip", kgo.GzipCompression(), 1},
		{"snappy", kgo.SnappyCompression(), 2},
		{"lz4", kgo.Lz4Compression(), 3},
		{"zstd", kgo.ZstdCompression(), 4},
	}
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			topic := harness.Topic(t, rng, "t")
			createTopic(t, adm, topic, 3, nil)
			prod := newClient(t, b.Bootstrap(),
				kgo.RequiredAcks(kgo.AllISRAcks()),
				kgo.ProducerBatchCompression(c.codec),
				kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerLinger(0))
			recs := records(rng, topic, c.name, 300, 3, 0)
			for i, r := range recs {
				r.Headers = []kgo.RecordHeader{{Key: "i", Value: []byte(fmt.Sprint(i))}, {Key: "codec", Value: []byte(c.name)}}
			}
			want := produceSync(t, prod, recs)
			pid, epoch, err := prod.ProducerID(harness.Ctx(t, 10*time.Second))
			if err != nil || pid < 0 {
				t.Fatalf("idempotent producer id: %d epoch %d err %v", pid, epoch, err)
			}
			// Offsets per partition are 0..n-1 in produce order.
			next := map[int32]int64{}
			for _, w := range want {
				if w.Offset != next[w.Partition] {
					t.Fatalf("partition %d: produced offset %d, want %d", w.Partition, w.Offset, next[w.Partition])
				}
				next[w.Partition]++
			}
			got := consumeFromStart(t, b.Bootstrap(), topic, len(want))
			harness.CheckExact(t, want, gots(got, "reader"))
			byValue := map[string]*kgo.Record{}
			for _, r := range recs {
				byValue[string(r.Value)] = r
			}
			for _, g := range got {
				if ct := g.Attrs.CompressionType(); ct != c.attr {
					t.Fatalf("p%d@%d stored with codec %d, want %d (%s)", g.Partition, g.Offset, ct, c.attr, c.name)
				}
				if g.ProducerID != pid || g.ProducerEpoch != epoch {
					t.Fatalf("p%d@%d producer %d/%d, want %d/%d", g.Partition, g.Offset, g.ProducerID, g.ProducerEpoch, pid, epoch)
				}
				w := byValue[string(g.Value)]
				if len(g.Headers) != len(w.Headers) {
					t.Fatalf("p%d@%d: %d headers, want %d", g.Partition, g.Offset, len(g.Headers), len(w.Headers))
				}
				for i, h := range g.Headers {
					if h.Key != w.Headers[i].Key || !bytes.Equal(h.Value, w.Headers[i].Value) {
						t.Fatalf("p%d@%d header %d = %s:%q, want %s:%q", g.Partition, g.Offset, i, h.Key, h.Value, w.Headers[i].Key, w.Headers[i].Value)
					}
				}
			}
		})
	}
}
