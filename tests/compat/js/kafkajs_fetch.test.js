// kafkajs reading from a real spool broker without a consumer group: kafkajs'
// own Cluster/Broker classes (the ones its group consumer runs on) send the
// Fetch requests and decode the record batches, so this checks kafkajs'
// consume path end to end — Fetch version negotiation, batch parsing,
// decompression, keys, values, headers, timestamps, offsets — while consumer
// groups (FindCoordinator/JoinGroup/SyncGroup, issue 5) are not served yet.
// Data is written by librdkafka (kcat) and by kafkajs' producer, so neither
// side checks only itself.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const { Kafka, CompressionTypes, logLevel, Partitioners } = require('kafkajs');
const Cluster = require('kafkajs/src/cluster');
const { createLogger, LEVELS } = require('kafkajs/src/loggers');
const socketFactory = require('kafkajs/src/network/socketFactory');
const { startBroker } = require('./harness');

let broker;
let kafka;

const newTopic = (name) => `${name}-${crypto.randomBytes(4).toString('hex')}`;

test.before(async () => {
  broker = await startBroker();
  kafka = new Kafka({ clientId: 'spool-compat-fetch', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => {
  if (!broker) return;
  const rc = await broker.stop();
  assert.equal(rc, 0, `broker exited ${rc} on SIGTERM:\n${broker.log()}`);
});

// Reads partition 0 of `topic` from offset 0 until `count` messages arrived,
// with the Fetch kafkajs' consumer would send.
async function fetchAll(topic, count) {
  const cluster = new Cluster({
    logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} }),
    socketFactory: socketFactory(),
    brokers: [broker.bootstrap],
    clientId: 'spool-compat-fetch',
    connectionTimeout: 5000,
    retry: { retries: 3 },
  });
  await cluster.connect();
  try {
    await cluster.addTargetTopic(topic);
    const leaders = cluster.findLeaderForPartitions(topic, [0]);
    const [leaderId] = Object.keys(leaders);
    const leader = await cluster.findBroker({ nodeId: leaderId });
    const got = [];
    let offset = 0;
    const deadline = Date.now() + 20000;
    while (got.length < count && Date.now() < deadline) {
      const resp = await leader.fetch({
        replicaId: -1, isolationLevel: 0, maxWaitTime: 200, minBytes: 1, maxBytes: 1 << 20,
        topics: [{ topic, partitions: [{ partition: 0, fetchOffset: String(offset), maxBytes: 64 * 1024 }] }],
      });
      const part = resp.responses[0].partitions[0];
      assert.equal(part.errorCode, 0);
      for (const m of part.messages) {
        if (Number(m.offset) < offset) continue; // a batch may start before the requested offset
        got.push(m);
        offset = Number(m.offset) + 1;
      }
    }
    return got;
  } finally {
    await cluster.disconnect();
  }
}

for (const [name, codec] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]]) {
  test(`kafkajs fetches what kafkajs produced (${name})`, async () => {
    const topic = newTopic(`kafkajs-fetch-${name}`);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const baseTs = Date.now() - 5000;
    const sent = Array.from({ length: 300 }, (_, i) => ({
      key: i % 5 === 0 ? null : `k${i}`,
      value: `v${i}-${'x'.repeat(i % 100)}`,
      headers: { n: String(i) },
      timestamp: String(baseTs + i),
      partition: 0,
    }));
    try {
      for (let i = 0; i < sent.length; i += 100) {
        await producer.send({ topic, acks: -1, compression: codec, messages: sent.slice(i, i + 100) });
      }
    } finally {
      await producer.disconnect();
    }
    const got = await fetchAll(topic, sent.length);
    assert.equal(got.length, sent.length);
    got.forEach((m, i) => {
      assert.equal(Number(m.offset), i);
      assert.equal(m.key === null ? null : m.key.toString(), sent[i].key);
      assert.equal(m.value.toString(), sent[i].value);
      assert.equal(m.headers.n.toString(), String(i));
      assert.equal(m.timestamp, sent[i].timestamp);
    });
  });
}

test('kafkajs fetches what librdkafka (kcat) produced', async () => {
  const topic = newTopic('kafkajs-fetch-kcat');
  const lines = Array.from({ length: 50 }, (_, i) => `key${i}:line ${i}`).join('\n') + '\n';
  execFileSync('kcat', ['-b', broker.bootstrap, '-P', '-t', topic, '-K:', '-z', 'gzip', '-X', 'acks=all'],
    { input: lines, timeout: 60000 });
  const got = await fetchAll(topic, 50);
  assert.equal(got.length, 50);
  got.forEach((m, i) => {
    assert.equal(m.key.toString(), `key${i}`);
    assert.equal(m.value.toString(), `line ${i}`);
  });
});
