// kafkajs idempotent producer (`idempotent: true`) against a real spool
// broker: InitProducerId gives it a producer id, its batches carry sequence
// numbers, and what it sends is read back exactly once, in order. The read
// uses kafkajs' own Fetch path (Cluster/Broker), not a consumer group.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Kafka, logLevel, Partitioners } = require('kafkajs');
const Cluster = require('kafkajs/src/cluster');
const { createLogger, LEVELS } = require('kafkajs/src/loggers');
const socketFactory = require('kafkajs/src/network/socketFactory');
const { startBroker } = require('./harness');

let broker;
let kafka;

const newTopic = (name) => `${name}-${crypto.randomBytes(4).toString('hex')}`;

test.before(async () => {
  broker = await startBroker();
  kafka = new Kafka({ clientId: 'spool-compat-idem', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => {
  if (!broker) return;
  const rc = await broker.stop();
  assert.equal(rc, 0, `broker exited ${rc} on SIGTERM:\n${broker.log()}`);
});

// Every message of partition 0 from offset 0 until `count` arrived (or 20 s).
async function fetchAll(topic, count) {
  const cluster = new Cluster({
    logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} }),
    socketFactory: socketFactory(),
    brokers: [broker.bootstrap],
    clientId: 'spool-compat-idem',
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
    while (Date.now() < deadline) {
      const resp = await leader.fetch({
        replicaId: -1, isolationLevel: 0, maxWaitTime: 200, minBytes: 1, maxBytes: 1 << 20,
        topics: [{ topic, partitions: [{ partition: 0, fetchOffset: String(offset), maxBytes: 256 * 1024 }] }],
      });
      const part = resp.responses[0].partitions[0];
      assert.equal(part.errorCode, 0);
      for (const m of part.messages) {
        if (Number(m.offset) < offset) continue;
        got.push(m);
        offset = Number(m.offset) + 1;
      }
      if (got.length >= count && Number(part.highWatermark) <= offset) break;
    }
    return got;
  } finally {
    await cluster.disconnect();
  }
}

test('kafkajs idempotent producer: every message exactly once, in order', async () => {
  const topic = newTopic('kafkajs-idem');
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const N = 1000;
  const sent = Array.from({ length: N }, (_, i) => `idem-${String(i).padStart(6, '0')}`);
  const offsets = [];
  try {
    for (let i = 0; i < N; i += 100) {
      const res = await producer.send({
        topic, acks: -1, messages: sent.slice(i, i + 100).map((value) => ({ value, partition: 0 })),
      });
      assert.equal(res[0].errorCode, 0);
      offsets.push(Number(res[0].baseOffset));
    }
  } finally {
    await producer.disconnect();
  }
  assert.deepEqual(offsets, Array.from({ length: N / 100 }, (_, k) => k * 100));
  const got = await fetchAll(topic, N);
  assert.equal(got.length, N, 'exactly N messages (no duplicate, none missing)');
  got.forEach((m, i) => {
    assert.equal(Number(m.offset), i);
    assert.equal(m.value.toString(), sent[i]);
  });
});
