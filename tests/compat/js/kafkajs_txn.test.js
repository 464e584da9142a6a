// kafkajs 2.2.4 transactions against a real spool broker: commit and abort
// (read_committed consumers see exactly the committed records, read_uncommitted
// ones see everything), sendOffsets committing group offsets only with the
// transaction, and fencing of an older producer with the same transactionalId.
// A reader is taken to the end by a non-transactional sentinel per partition
// written last: a read_committed fetch cannot pass an unresolved transaction,
// so once every sentinel arrived nothing more is coming (no sleeps). Waits have
// generous deadlines; nothing asserts on durations.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Kafka, logLevel } = require('kafkajs');
const { startBroker } = require('./harness');

const WAIT_MS = 60000;
const NPARTS = 3;
let broker;
let kafka;

const newName = (name) => `${name}-${crypto.randomBytes(4).toString('hex')}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(pred, what, state = () => '') {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (await pred()) return;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}\nstate: ${JSON.stringify(await state())}` +
                      `\nbroker log tail:\n${broker.log().slice(-4000)}`);
    }
    await sleep(100);
  }
}

async function createTopic(topic, numPartitions = NPARTS) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true }),
                 true);
  } finally {
    await admin.disconnect();
  }
}

// n messages "tag:i", message i to partition i % NPARTS.
const records = (tag, n) => Array.from({ length: n }, (_, i) => ({ value: `${tag}:${i}`,
                                                                   partition: i % NPARTS }));
const sortedValues = (msgs) => msgs.map((m) => m.value).sort();

function txnProducer(transactionalId) {
  return kafka.producer({ transactionalId, maxInFlightRequests: 1, idempotent: true,
                          transactionTimeout: 30000 });
}

async function writeSentinels(topic) {
  const p = kafka.producer();
  await p.connect();
  try {
    await p.send({ topic, acks: -1, messages: Array.from({ length: NPARTS },
      (_, i) => ({ value: `sentinel:${i}`, partition: i })) });
  } finally {
    await p.disconnect();
  }
}

// Everything before the sentinels, as seen by a fresh group consumer with the
// given isolation: [{ partition, offset, value }].
async function readUntilSentinels(topic, readUncommitted) {
  const consumer = kafka.consumer({ groupId: newName('kjs-txn-reader'), readUncommitted,
                                    maxWaitTimeInMs: 200 });
  const got = [];
  const done = new Set();
  const crashes = [];
  consumer.on(consumer.events.CRASH, (e) => crashes.push(String(e.payload.error)));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const value = message.value.toString();
        if (value.startsWith('sentinel:')) done.add(partition);
        else got.push({ partition, offset: Number(message.offset), value });
      },
    });
    await waitUntil(() => done.size === NPARTS,
                    `sentinels on all partitions (readUncommitted=${readUncommitted})`,
                    () => ({ done: [...done], read: got.length, crashes }));
  } finally {
    await consumer.disconnect();
  }
  return got;
}

test.before(async () => {
  broker = await startBroker({ 'group.initial.rebalance.delay.ms': '0' });
  kafka = new Kafka({ clientId: 'spool-compat-txn', brokers: [broker.bootstrap],
                      logLevel: logLevel.NOTHING, connectionTimeout: 5000, requestTimeout: 30000,
                      retry: { retries: 8 } });
});

test.after(async () => {
  if (!broker) return;
  const alive = broker.external || broker.alive();
  const rc = await broker.stop();
  assert.ok(alive, `broker died during the tests:\n${broker.log()}`);
  assert.equal(rc, 0, `broker exited ${rc} on SIGTERM:\n${broker.log()}`);
});

test('commit and abort: read_committed sees exactly the committed records', async () => {
  const topic = newName('kjs-txn');
  await createTopic(topic);
  const producer = txnProducer(newName('kjs-tid'));
  await producer.connect();
  const committed = [];
  const all = [];
  try {
    for (let t = 0; t < 6; t++) {
      const msgs = records(`t${t}`, 9);
      const txn = await producer.transaction();
      await txn.send({ topic, messages: msgs });
      if (t % 2 === 0) {
        await txn.commit();
        committed.push(...msgs);
      } else {
        await txn.abort();
      }
      all.push(...msgs);
    }
  } finally {
    await producer.disconnect();
  }
  await writeSentinels(topic);

  const clean = await readUntilSentinels(topic, false);
  assert.deepEqual(sortedValues(clean), sortedValues(committed),
                   'read_committed must see exactly the committed transactions');
  const dirty = await readUntilSentinels(topic, true);
  assert.deepEqual(sortedValues(dirty), sortedValues(all),
                   'read_uncommitted must see every record written');
  // 6 transactions x 3 records + 6 markers per partition, then the sentinel.
  for (const { partition, offset } of dirty) {
    assert.ok(offset < 24 && partition < NPARTS, `record at ${partition}:${offset}`);
  }
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offs = await admin.fetchTopicOffsets(topic);
    for (const o of offs) assert.equal(o.high, '25', `partition ${o.partition} high watermark`);
  } finally {
    await admin.disconnect();
  }
});

test('sendOffsets commits group offsets with the transaction only', async () => {
  const topic = newName('kjs-txn-out');
  await createTopic(topic);
  const groupId = newName('kjs-txn-group');
  const input = newName('kjs-txn-in');
  await createTopic(input);
  const admin = kafka.admin();
  await admin.connect();
  const producer = txnProducer(newName('kjs-tid'));
  await producer.connect();
  const groupOffsets = async () => {
    const [res] = await admin.fetchOffsets({ groupId, topics: [input] });
    return res.partitions.map((p) => [p.partition, p.offset]).sort((a, b) => a[0] - b[0]);
  };
  const offsets = (o) => [{ topic: input, partitions: Array.from({ length: NPARTS },
    (_, partition) => ({ partition, offset: String(o) })) }];
  try {
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ value: 'aborted:0', partition: 0 }] });
    await aborted.sendOffsets({ consumerGroupId: groupId, topics: offsets(7) });
    await aborted.abort();
    assert.deepEqual(await groupOffsets(), [[0, '-1'], [1, '-1'], [2, '-1']],
                     'offsets of an aborted transaction were committed');

    const txn = await producer.transaction();
    await txn.send({ topic, messages: records('out', 3) });
    await txn.sendOffsets({ consumerGroupId: groupId, topics: offsets(11) });
    await txn.commit();
    let last;
    await waitUntil(async () => {
      last = await groupOffsets();
      return JSON.stringify(last) === JSON.stringify([[0, '11'], [1, '11'], [2, '11']]);
    }, 'committed offsets 11 on every input partition', () => last);
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
  await writeSentinels(topic);
  assert.deepEqual(sortedValues(await readUntilSentinels(topic, false)),
                   sortedValues(records('out', 3)));
});

test('an older producer with the same transactionalId is fenced', async () => {
  const topic = newName('kjs-fence');
  await createTopic(topic);
  const tid = newName('kjs-tid');
  const older = txnProducer(tid);
  const newer = txnProducer(tid);
  await older.connect();
  await newer.connect();
  try {
    const oldTxn = await older.transaction();
    await oldTxn.send({ topic, messages: records('old', 3) });

    const newTxn = await newer.transaction(); // InitProducerId: epoch bump, old txn aborted
    await newTxn.send({ topic, messages: records('new', 3) });
    await newTxn.commit();

    let err;
    try {
      await oldTxn.send({ topic, messages: records('old2', 3) });
      await oldTxn.commit();
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'the fenced producer committed');
    const type = err.type || (err.originalError && err.originalError.type) || String(err);
    assert.match(String(type) + String(err), /FENCED|INVALID_PRODUCER_EPOCH|fenced|epoch/i,
                 `unexpected error for the fenced producer: ${err}`);
  } finally {
    await older.disconnect().catch(() => {});
    await newer.disconnect();
  }
  await writeSentinels(topic);
  assert.deepEqual(sortedValues(await readUntilSentinels(topic, false)),
                   sortedValues(records('new', 3)), 'fenced producer records are visible');
});
