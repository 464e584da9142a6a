// kafkajs 2.2.4 consumer groups against a real spool broker: two members of
// one group split a topic and consume every message exactly once, kafkajs's
// auto-commits are visible through admin.fetchOffsets, a later run of the
// group resumes after them, and members leaving (disconnect = LeaveGroup) or
// dying (SIGKILL of a child process, no LeaveGroup) hand their partitions to
// the survivor. Assignments are tracked from GROUP_JOIN events; waits have
// generous deadlines and nothing asserts on durations.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Kafka, logLevel } = require('kafkajs');
const { startBroker } = require('./harness');

const WAIT_MS = 60000;
const NPARTS = 4;
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

// A kafkajs group member running consumer.run, recording its assignment and
// what it consumed.
function member(name, groupId) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 1000,
                                    rebalanceTimeout: 30000, maxWaitTimeInMs: 500 });
  const m = { name, consumer, assignment: new Set(), joins: 0, messages: [], crashes: [] };
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    m.joins += 1;
    m.assignment = new Set();
    for (const ps of Object.values(e.payload.memberAssignment)) for (const p of ps) m.assignment.add(p);
  });
  consumer.on(consumer.events.CRASH, (e) => m.crashes.push(String(e.payload.error)));
  m.start = async (topic) => {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        m.messages.push([partition, Number(message.offset), message.value.toString()]);
      },
    });
    return m;
  };
  return m;
}

// Assignments of `members` are disjoint and cover all partitions.
function splitOk(members, nparts = NPARTS) {
  const seen = new Set();
  for (const m of members) {
    for (const p of m.assignment) {
      if (seen.has(p)) return false;
      seen.add(p);
    }
  }
  return seen.size === nparts && members.every((m) => m.assignment.size > 0);
}
const splitState = (members) => members.map((m) => [m.name, [...m.assignment].sort(), m.crashes]);

async function createTopic(topic) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: NPARTS }],
                                            waitForLeaders: true }), true);
  } finally {
    await admin.disconnect();
  }
}

// Produces values start..start+n-1, message i to partition i % NPARTS.
// Returns Map "partition:offset" -> value.
async function produceNumbered(topic, n, start = 0) {
  const producer = kafka.producer();
  await producer.connect();
  const out = new Map();
  try {
    for (let p = 0; p < NPARTS; p++) {
      const values = [];
      for (let i = start; i < start + n; i++) if (i % NPARTS === p) values.push(String(i));
      if (!values.length) continue;
      const [meta] = await producer.send({ topic, acks: -1,
        messages: values.map((v) => ({ key: `k${v}`, value: v, partition: p })) });
      assert.equal(meta.errorCode, 0);
      values.forEach((v, j) => out.set(`${p}:${Number(meta.baseOffset) + j}`, v));
    }
  } finally {
    await producer.disconnect();
  }
  return out;
}

const asMap = (msgs) => new Map(msgs.map(([p, o, v]) => [`${p}:${o}`, v]));

test.before(async () => {
  broker = await startBroker({ 'group.initial.rebalance.delay.ms': '0' });
  kafka = new Kafka({ clientId: 'spool-compat-groups', brokers: [broker.bootstrap],
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

test('group of 2 consumes each message once, commits, and a later run resumes', async () => {
  const topic = newName('kjs-group');
  const groupId = newName('kjs-g');
  await createTopic(topic);
  const members = [member('a', groupId), member('b', groupId)];
  try {
    await Promise.all(members.map((m) => m.start(topic)));
    await waitUntil(() => splitOk(members), 'both members own 2 partitions',
                    () => splitState(members));
    // Produced once the group is stable: no rebalance can cause a re-read.
    const produced = await produceNumbered(topic, 200);
    const total = () => members.reduce((s, m) => s + m.messages.length, 0);
    await waitUntil(() => total() >= 200, '200 messages over both members',
                    () => [total(), splitState(members)]);
    const all = members.flatMap((m) => m.messages);
    assert.equal(all.length, 200, 'duplicates consumed');
    assert.deepEqual(asMap(all), produced);
    for (const m of members) {
      for (const [p] of m.messages) assert.ok(m.assignment.has(p), `${m.name} read partition ${p}`);
    }

    // kafkajs auto-commits after each batch: every partition at its end (50).
    const admin = kafka.admin();
    await admin.connect();
    try {
      let last;
      await waitUntil(async () => {
        const [res] = await admin.fetchOffsets({ groupId, topics: [topic] });
        last = res.partitions.map((p) => [p.partition, p.offset]).sort((x, y) => x[0] - y[0]);
        return last.length === NPARTS && last.every(([, o]) => o === '50');
      }, 'committed offsets 50 on every partition', () => last);
    } finally {
      await admin.disconnect();
    }
  } finally {
    await Promise.all(members.map((m) => m.consumer.disconnect()));
  }

  const more = await produceNumbered(topic, 40, 200);
  const c = member('c', groupId);
  try {
    await c.start(topic);
    await waitUntil(() => c.messages.length >= 40, 'the 40 new messages in the second run',
                    () => [c.messages.length, [...c.assignment], c.crashes]);
    await sleep(1000); // room for wrongly replayed records to show up
    const below = c.messages.filter(([, o]) => o < 50);
    assert.deepEqual(below, [], 'second run replayed committed messages');
    assert.equal(c.messages.length, 40);
    assert.deepEqual(asMap(c.messages), more);
  } finally {
    await c.consumer.disconnect();
  }
});

test('a member that disconnects hands its partitions to the other', async () => {
  const topic = newName('kjs-leave');
  const groupId = newName('kjs-g');
  await createTopic(topic);
  const a = member('a', groupId);
  const b = member('b', groupId);
  try {
    await a.start(topic);
    await b.start(topic);
    await waitUntil(() => splitOk([a, b]), 'split over 2 members', () => splitState([a, b]));
    const joins = a.joins;
    await b.consumer.disconnect(); // LeaveGroup
    await waitUntil(() => a.assignment.size === NPARTS && a.joins > joins,
                    'remaining member owns all 4 partitions', () => splitState([a]));
    const produced = await produceNumbered(topic, 40);
    await waitUntil(() => a.messages.length >= 40, '40 messages on the remaining member',
                    () => [a.messages.length, a.crashes]);
    assert.deepEqual(asMap(a.messages), produced);
  } finally {
    await a.consumer.disconnect();
    await b.consumer.disconnect();
  }
});

// A member in a child node process, SIGKILLed: the broker only notices via
// the session timeout.
const CHILD = `
const { Kafka, logLevel } = require('kafkajs');
const [bootstrap, groupId, topic] = process.argv.slice(-3);
const kafka = new Kafka({ clientId: 'child', brokers: [bootstrap], logLevel: logLevel.NOTHING });
const c = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 1000 });
c.on(c.events.GROUP_JOIN, (e) => console.log(JSON.stringify(e.payload.memberAssignment)));
(async () => { await c.connect(); await c.subscribe({ topic, fromBeginning: true });
  await c.run({ eachMessage: async () => {} }); })().catch((e) => { console.error(e); process.exit(1); });
`;

test('a killed member (no LeaveGroup) loses its partitions after the session timeout', async () => {
  const topic = newName('kjs-kill');
  const groupId = newName('kjs-g');
  await createTopic(topic);
  const a = member('a', groupId);
  const child = spawn(process.execPath, ['-e', CHILD, '--', broker.bootstrap, groupId, topic],
                      { env: { ...process.env, NODE_PATH: path.join(__dirname, 'node_modules') },
                        stdio: ['ignore', 'pipe', 'pipe'] });
  let childOut = '';
  child.stdout.on('data', (d) => { childOut += d; });
  child.stderr.on('data', (d) => { childOut += d; });
  const childAssignment = () => {
    const lines = childOut.trim().split('\n').filter((l) => l.startsWith('{'));
    if (!lines.length) return new Set();
    return new Set(Object.values(JSON.parse(lines[lines.length - 1])).flat());
  };
  try {
    await a.start(topic);
    await waitUntil(() => {
      const ca = childAssignment();
      return ca.size > 0 && splitOk([a, { assignment: ca }]);
    }, 'split between the member and the child process', () => [splitState([a]), childOut]);
    const joins = a.joins;
    child.kill('SIGKILL');
    await waitUntil(() => a.assignment.size === NPARTS && a.joins > joins,
                    'survivor owns all partitions after the session timeout', () => splitState([a]));
  } finally {
    child.kill('SIGKILL');
    await a.consumer.disconnect();
  }
});
