// kadm against the broker: create/list/describe/delete topics, describe and
// incrementally alter topic configs, list offsets (start, end, max timestamp,
// by time), describe cluster and brokers, list/describe groups, group
// offsets and lag, delete groups, delete records and add partitions.
package franz

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/spool/compat-go/harness"
)

func topicConfig(t *testing.T, adm *kadm.Client, topic, key string) kadm.Config {
	t.Helper()
	rcs, err := adm.DescribeTopicConfigs(harness.Ctx(t, 20*time.Second), topic)
	if err != nil {
		t.Fatalf("describe configs %s: %v", topic, err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil || rc.Err != nil {
		t.Fatalf("describe configs %s: %v / %v", topic, err, rc.Err)
	}
	for _, c := range rc.Configs {
		if c.Key == key {
			return c
		}
	}
	t.Fatalf("topic %s has no config %s", topic, key)
	return kadm.Config{}
}

func TestFranzAdmin(t *testing.T) {
	b := harness.Shared(t)
	kcl := newClient(t, b.Bootstrap())
	adm := kadm.NewClient(kcl)
	rng := harness.Rand(t)
	t1, t2 := harness.Topic(t, rng, "a"), harness.Topic(t, rng, "b")
	ctx := harness.Ctx(t, 100*time.Second)

	// Create two topics, one with a config.
	created, err := adm.CreateTopics(ctx, 3, 1, map[string]*string{"retention.ms": strp("3600000")}, t1, t2)
	if err != nil {
		t.Fatalf("create topics: %v", err)
	}
	// num_partitions/replication_factor are in CreateTopics responses from v5.
	wantParts, wantRF := int32(-1), int16(-1)
	if negotiated(t, adm, kmsg.NewPtrCreateTopicsRequest()) >= 5 {
		wantParts, wantRF = 3, 1
	}
	for _, name := range []string{t1, t2} {
		if r := created[name]; r.Err != nil || r.NumPartitions != wantParts || r.ReplicationFactor != wantRF {
			t.Fatalf("create %s: %+v, want %d partitions, replication factor %d", name, r, wantParts, wantRF)
		}
	}
	again, err := adm.CreateTopics(ctx, 3, 1, nil, t1)
	if err != nil || !errors.Is(again[t1].Err, kerr.TopicAlreadyExists) {
		t.Fatalf("second create of %s: %v / %v, want TOPIC_ALREADY_EXISTS", t1, err, again[t1].Err)
	}

	// List and describe (Metadata) and the cluster.
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatalf("list topics: %v", err)
	}
	meta, err := adm.Metadata(ctx, t1)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	if len(meta.Brokers) != 1 || meta.Brokers[0].Port != int32(b.Port) || meta.Brokers[0].Host != "127.0.0.1" {
		t.Fatalf("brokers %+v, want one at 127.0.0.1:%d", meta.Brokers, b.Port)
	}
	node := meta.Brokers[0].NodeID
	for _, name := range []string{t1, t2} {
		td, ok := topics[name]
		if !ok || td.Err != nil || td.IsInternal || len(td.Partitions) != 3 {
			t.Fatalf("listed topic %s: %+v (found %v)", name, td, ok)
		}
		for p, pd := range td.Partitions {
			if pd.Leader != node || len(pd.Replicas) != 1 || pd.Replicas[0] != node || len(pd.ISR) != 1 || pd.Err != nil {
				t.Fatalf("%s[%d]: %+v, want leader/replica/isr %d", name, p, pd, node)
			}
		}
	}
	if meta.Cluster == "" || meta.Controller != node {
		t.Fatalf("metadata cluster %q controller %d, want an id and controller %d", meta.Cluster, meta.Controller, node)
	}
	dc, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(ctx, kcl)
	if err != nil || dc.ErrorCode != 0 {
		t.Fatalf("describe cluster: %v / code %v", err, dc)
	}
	if dc.ClusterID != meta.Cluster || len(dc.Brokers) != 1 || dc.Brokers[0].Port != int32(b.Port) || dc.Brokers[0].NodeID != node {
		t.Fatalf("describe cluster %+v disagrees with metadata %+v", dc, meta)
	}

	// Configs: the create-time value, incremental set and delete.
	if c := topicConfig(t, adm, t1, "retention.ms"); c.MaybeValue() != "3600000" || c.Source != kmsg.ConfigSourceDynamicTopicConfig {
		t.Fatalf("retention.ms = %q from %v, want 3600000 DYNAMIC_TOPIC_CONFIG", c.MaybeValue(), c.Source)
	}
	alter := func(cfgs ...kadm.AlterConfig) {
		t.Helper()
		rs, err := adm.AlterTopicConfigs(ctx, cfgs, t1)
		if err != nil || len(rs) != 1 || rs[0].Err != nil {
			t.Fatalf("alter configs: %v %+v", err, rs)
		}
	}
	// Kafka (KRaft) applies an alter through its metadata log, so a describe
	// right after it may still show the old value: wait up to 10 s.
	expectConfig := func(key, value string, source kmsg.ConfigSource) {
		t.Helper()
		var c kadm.Config
		if !harness.WaitFor(10*time.Second, func() bool {
			c = topicConfig(t, adm, t1, key)
			return c.MaybeValue() == value && c.Source == source
		}) {
			t.Fatalf("%s = %q from %v, want %q from %v", key, c.MaybeValue(), c.Source, value, source)
		}
	}
	alter(kadm.AlterConfig{Op: kadm.SetConfig, Name: "retention.ms", Value: strp("7200000")},
		kadm.AlterConfig{Op: kadm.SetConfig, Name: "max.message.bytes", Value: strp("500000")})
	expectConfig("retention.ms", "7200000", kmsg.ConfigSourceDynamicTopicConfig)
	expectConfig("max.message.bytes", "500000", kmsg.ConfigSourceDynamicTopicConfig)
	alter(kadm.AlterConfig{Op: kadm.DeleteConfig, Name: "retention.ms"})
	expectConfig("retention.ms", "604800000", kmsg.ConfigSourceDefaultConfig)

	// 10 records per partition for the group and delete-records checks.
	prod := newClient(t, b.Bootstrap(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	produceSync(t, prod, records(rng, t1, "adm", 30, 3, 0))
	checkListed := listedChecker(t, t1)
	var l kadm.ListedOffsets
	// A group with one live member that committed everything.
	group := harness.Topic(t, rng, "g")
	cons := newClient(t, b.Bootstrap(), kgo.ClientID("adm-member"), kgo.ConsumerGroup(group), kgo.ConsumeTopics(t1),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(300*time.Millisecond))
	n := 0
	for n < 30 {
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		fs := cons.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			t.Fatalf("group consumed %d of 30", n)
		}
		n += len(fs.Records())
	}
	if n != 30 {
		t.Fatalf("group consumed %d records, want 30", n)
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	listed, err := adm.ListGroups(ctx)
	if err != nil || listed[group].State != "Stable" || listed[group].ProtocolType != "consumer" {
		t.Fatalf("list groups: %v %+v, want %s Stable consumer", err, listed[group], group)
	}
	described, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		t.Fatalf("describe groups: %v", err)
	}
	dg := described[group]
	if dg.Err != nil || dg.State != "Stable" || dg.Protocol != "cooperative-sticky" || len(dg.Members) != 1 || dg.Members[0].ClientID != "adm-member" {
		t.Fatalf("described group %+v", dg)
	}
	if ap := dg.AssignedPartitions(); len(ap[t1]) != 3 {
		t.Fatalf("assigned partitions %v, want %s 0-2", ap, t1)
	}
	checkCommitted(t, adm, group, t1, 3, 10)
	lags, err := adm.Lag(ctx, group)
	lag := lags[group]
	if err != nil || lag.Error() != nil || lag.Lag.Total() != 0 {
		t.Fatalf("lag: %v %+v", err, lag)
	}
	cons.Close()
	if !harness.WaitFor(10*time.Second, func() bool {
		d, err := adm.DescribeGroups(ctx, group)
		return err == nil && d[group].State == "Empty" && len(d[group].Members) == 0
	}) {
		t.Fatalf("group %s not Empty after its member left", group)
	}

	// Delete records below offset 5 of partition 0.
	dr, err := adm.DeleteRecords(ctx, kadm.Offsets{t1: {0: {Topic: t1, Partition: 0, At: 5}}})
	if r, ok := dr.Lookup(t1, 0); err != nil || !ok || r.Err != nil || r.LowWatermark != 5 {
		t.Fatalf("delete records: %v %+v", err, r)
	}
	l, err = adm.ListStartOffsets(ctx, t1)
	checkListed("start after delete records", l, err, func(p int32) (int64, int64) {
		if p == 0 {
			return 5, -1
		}
		return 0, -1
	})
	left := consumeFromStart(t, b.Bootstrap(), t1, 25)
	for _, r := range left {
		if r.Partition == 0 && r.Offset < 5 {
			t.Fatalf("deleted record %s[0]@%d was returned", t1, r.Offset)
		}
	}
	if len(left) != 25 {
		t.Fatalf("after delete records read %d, want 25", len(left))
	}

	// Delete the (now empty) group, add partitions, delete a topic.
	dg2, err := adm.DeleteGroups(ctx, group)
	if err != nil || dg2[group].Err != nil {
		t.Fatalf("delete group: %v %+v", err, dg2[group])
	}
	if listed, err := adm.ListGroups(ctx); err != nil || listed[group].Group != "" {
		t.Fatalf("deleted group still listed: %v %+v", err, listed[group])
	}
	cp, err := adm.CreatePartitions(ctx, 2, t1)
	if err != nil || cp[t1].Err != nil {
		t.Fatalf("create partitions: %v %+v", err, cp[t1])
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		td, err := adm.ListTopics(ctx, t1)
		return err == nil && len(td[t1].Partitions) == 5
	}) {
		t.Fatalf("%s does not have 5 partitions", t1)
	}
	del, err := adm.DeleteTopics(ctx, t2)
	if err != nil || del[t2].Err != nil {
		t.Fatalf("delete topic: %v %+v", err, del[t2])
	}
	if !harness.WaitFor(15*time.Second, func() bool {
		td, err := adm.ListTopics(ctx)
		_, still := td[t2]
		return err == nil && !still
	}) {
		t.Fatalf("deleted topic %s still listed", t2)
	}
}

// negotiated is the version kgo uses for req against the broker: the lower of
// the client's and the broker's maximum.
func negotiated(t *testing.T, adm *kadm.Client, req kmsg.Request) int16 {
	t.Helper()
	vs, err := adm.ApiVersions(harness.Ctx(t, 10*time.Second))
	if err != nil {
		t.Fatalf("api versions: %v", err)
	}
	v := req.MaxVersion()
	vs.Each(func(bv kadm.BrokerApiVersions) {
		if max, ok := bv.KeyMaxVersion(req.Key()); ok && max < v {
			v = max
		} else if !ok {
			v = -1
		}
	})
	return v
}

// listedChecker checks every partition of topic (3) in a ListOffsets result
// against want(p) = (offset, timestamp or -1 for "not checked").
func listedChecker(t *testing.T, topic string) func(string, kadm.ListedOffsets, error, func(int32) (int64, int64)) {
	return func(what string, l kadm.ListedOffsets, err error, want func(p int32) (int64, int64)) {
		t.Helper()
		if err != nil || l.Error() != nil {
			t.Fatalf("%s: %v / %v", what, err, l.Error())
		}
		for p := int32(0); p < 3; p++ {
			o, ok := l.Lookup(topic, p)
			wo, wts := want(p)
			if !ok || o.Offset != wo || (wts >= 0 && o.Timestamp != wts) {
				t.Fatalf("%s %s[%d] = %+v, want offset %d timestamp %d", what, topic, p, o, wo, wts)
			}
		}
	}
}

// timestampedTopic makes a 3-partition topic with 10 records per partition,
// record i of a partition stamped base+i s, except partition 0's offset 4,
// stamped base+100 s (its maximum).
func timestampedTopic(t *testing.T) (*kadm.Client, string, func(time.Duration) int64) {
	b := harness.Shared(t)
	adm := newAdmin(t, b.Bootstrap())
	rng := harness.Rand(t)
	topic := harness.Topic(t, rng, "t")
	createTopic(t, adm, topic, 3, nil)
	base := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	prod := newClient(t, b.Bootstrap(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	recs := records(rng, topic, "ts", 30, 3, 0)
	for i, r := range recs {
		r.Timestamp = base.Add(time.Duration(i/3) * time.Second)
		if i/3 == 4 && r.Partition == 0 {
			r.Timestamp = base.Add(100 * time.Second)
		}
	}
	produceSync(t, prod, recs)
	return adm, topic, func(d time.Duration) int64 { return base.Add(d).UnixMilli() }
}

func TestFranzAdminListOffsets(t *testing.T) {
	adm, topic, ms := timestampedTopic(t)
	ctx := harness.Ctx(t, 30*time.Second)
	check := listedChecker(t, topic)
	l, err := adm.ListStartOffsets(ctx, topic)
	check("start", l, err, func(int32) (int64, int64) { return 0, -1 })
	l, err = adm.ListEndOffsets(ctx, topic)
	check("end", l, err, func(int32) (int64, int64) { return 10, -1 })
	l, err = adm.ListOffsetsAfterMilli(ctx, ms(5*time.Second), topic)
	check("after time", l, err, func(p int32) (int64, int64) {
		if p == 0 {
			return 4, ms(100 * time.Second)
		}
		return 5, ms(5 * time.Second)
	})
	l, err = adm.ListOffsetsAfterMilli(ctx, ms(101*time.Second), topic)
	check("after the last timestamp", l, err, func(int32) (int64, int64) { return 10, -1 })
}

// ListOffsets with timestamp -3 (KIP-734, ListOffsets v7): the offset and
// timestamp of the record with the largest timestamp.
func TestFranzAdminListMaxTimestampOffsets(t *testing.T) {
	adm, topic, ms := timestampedTopic(t)
	l, err := adm.ListMaxTimestampOffsets(harness.Ctx(t, 30*time.Second), topic)
	listedChecker(t, topic)("max timestamp", l, err, func(p int32) (int64, int64) {
		if p == 0 {
			return 4, ms(100 * time.Second)
		}
		return 9, ms(9 * time.Second)
	})
}
