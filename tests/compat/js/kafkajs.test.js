// kafkajs 2.x against a real spool broker: producing (none and gzip), admin
// topic creation and offset queries, and a group consumer once the broker
// serves consumer groups. What kafkajs produced is read back with kcat
// (librdkafka), so the check does not rest on the client that wrote it.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const { Kafka, CompressionTypes, logLevel, Partitioners } = require('kafkajs');
const { startBroker, apiKeys } = require('./harness');

let broker;
let kafka;

const newTopic = (name) => `${name}-${crypto.randomBytes(4).toString('hex')}`;

function kcatJson(bootstrap, topic, partition = 0) {
  const out = execFileSync('kcat', ['-b', bootstrap, '-C', '-t', topic, '-p', String(partition),
    '-o', 'beginning', '-e', '-J'], { timeout: 60000 }).toString();
  return out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

function hasKcat() {
  try { execFileSync('kcat', ['-V']); return true; } catch { return false; }
}

test.before(async () => {
  broker = await startBroker();
  kafka = new Kafka({
    clientId: 'spool-compat',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5000,
    requestTimeout: 30000,
    retry: { retries: 5 },
  });
});

test.after(async () => {
  if (!broker) return;
  const alive = broker.external || broker.alive();
  const rc = await broker.stop();
  assert.ok(alive, `broker died during the tests:\n${broker.log()}`);
  assert.equal(rc, 0, `broker exited ${rc} on SIGTERM:\n${broker.log()}`);
});

for (const [name, codec] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]]) {
  test(`produce ${name} and read back with kcat`, { skip: !hasKcat() && 'kcat missing' }, async () => {
    const topic = newTopic(`kafkajs-produce-${name}`);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const baseTs = Date.now() - 10000;
    const messages = [];
    for (let i = 0; i < 200; i++) {
      messages.push({
        key: `key-${i % 7}`,
        value: `value ${i} ${'z'.repeat(i % 60)}`,
        headers: { source: 'kafkajs', seq: String(i) },
        timestamp: String(baseTs + i),
        partition: 0,
      });
    }
    try {
      // Several sends so the log holds several batches.
      let next = 0;
      for (let i = 0; i < messages.length; i += 50) {
        const meta = await producer.send({ topic, acks: -1, compression: codec,
                                           messages: messages.slice(i, i + 50) });
        assert.equal(meta.length, 1);
        assert.equal(meta[0].errorCode, 0);
        assert.equal(Number(meta[0].baseOffset), next);
        next += 50;
      }
    } finally {
      await producer.disconnect();
    }
    const got = kcatJson(broker.bootstrap, topic);
    assert.equal(got.length, messages.length);
    got.forEach((m, i) => {
      assert.equal(m.offset, i);
      assert.equal(m.key, messages[i].key);
      assert.equal(m.payload, messages[i].value);
      assert.equal(m.ts, Number(messages[i].timestamp));
      assert.deepEqual(m.headers, ['source', 'kafkajs', 'seq', String(i)]);
    });
  });
}

test('admin: create topic, metadata, offsets by time', async () => {
  const topic = newTopic('kafkajs-admin');
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
    assert.equal(created, true);
    // A second create of the same topic reports "not created" (false).
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] }), false);

    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    assert.equal(md.topics[0].name, topic);
    assert.deepEqual(md.topics[0].partitions.map((p) => p.partitionId).sort(), [0, 1]);

    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const baseTs = 1_400_000_000_000;
    try {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 30 }, (_, i) => (
        { partition: 0, value: `p0-${i}`, timestamp: String(baseTs + i * 1000) })) });
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 12 }, (_, i) => (
        { partition: 1, value: `p1-${i}`, timestamp: String(baseTs + i * 1000) })) });
    } finally {
      await producer.disconnect();
    }

    const offsets = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
    assert.deepEqual(offsets.map((o) => [o.partition, o.low, o.high, o.offset]),
      [[0, '0', '30', '30'], [1, '0', '12', '12']]);

    const byTs = async (ts) => (await admin.fetchTopicOffsetsByTimestamp(topic, ts))
      .sort((a, b) => a.partition - b.partition).map((o) => o.offset);
    assert.deepEqual(await byTs(baseTs + 10_500), ['11', '11']);
    assert.deepEqual(await byTs(baseTs + 20_000), ['20', '12']); // past p1's last: its end offset
    assert.deepEqual(await byTs(baseTs - 1), ['0', '0']);

    await admin.deleteTopics({ topics: [topic], timeout: 10000 });
    const left = await admin.listTopics();
    assert.ok(!left.includes(topic), 'deleted topic still listed');
  } finally {
    await admin.disconnect();
  }
});

test('group consumer reads what was produced', async (t) => {
  const keys = await apiKeys(broker.bootstrap);
  // kafkajs has no group-less consumer; it needs FindCoordinator and JoinGroup.
  assert.ok(keys.has(10) && keys.has(11), 'FindCoordinator and JoinGroup are not advertised');
  const topic = newTopic('kafkajs-consume');
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const values = Array.from({ length: 100 }, (_, i) => `c${i}`);
  try {
    await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP,
                          messages: values.map((v, i) => ({ key: `k${i}`, value: v, partition: 0 })) });
  } finally {
    await producer.disconnect();
  }
  const consumer = kafka.consumer({ groupId: newTopic('kafkajs-group') });
  await consumer.connect();
  const got = [];
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out with ${got.length} messages`)), 30000);
      consumer.run({
        eachMessage: async ({ message }) => {
          got.push([Number(message.offset), message.key.toString(), message.value.toString()]);
          if (got.length === values.length) { clearTimeout(timer); resolve(); }
        },
      }).catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  assert.deepEqual(got, values.map((v, i) => [i, `k${i}`, v]));
});
