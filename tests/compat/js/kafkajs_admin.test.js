// kafkajs 2.x admin client against a real spool broker: createPartitions,
// describeConfigs (topic and broker resources, sources, synonyms) and
// deleteTopicRecords, each checked through kafkajs's own metadata and
// offset queries. The broker's node id comes from describeCluster (Spool is
// node 0, the Kafka peer node 1), and a change is awaited until the broker
// shows it (Kafka's broker applies what its controller committed a moment
// after answering; Spool before it answers).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Kafka, ConfigResourceTypes, ConfigSource, logLevel, Partitioners } = require('kafkajs');
const { startBroker } = require('./harness');

let broker;
let kafka;
let admin;

const newTopic = (name) => `${name}-${crypto.randomBytes(4).toString('hex')}`;

test.before(async () => {
  broker = await startBroker();
  kafka = new Kafka({
    clientId: 'spool-compat-admin',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5000,
    requestTimeout: 30000,
    retry: { retries: 2 },
  });
  admin = kafka.admin();
  await admin.connect();
});

test.after(async () => {
  if (admin) await admin.disconnect();
  if (!broker) return;
  const alive = broker.external || broker.alive();
  const rc = await broker.stop();
  assert.ok(alive, `broker died during the tests:\n${broker.log()}`);
  assert.equal(rc, 0, `broker exited ${rc} on SIGTERM:\n${broker.log()}`);
});

async function partitionCount(topic) {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  return md.topics[0].partitions.length;
}

// Polls `get` until it returns `want` (deep-equal), for at most 30 s.
async function eventually(get, want, what) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const got = await get();
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    if (Date.now() > deadline) assert.fail(`${what}: ${JSON.stringify(got)} after 30 s, want ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function nodeId() {
  const { brokers } = await admin.describeCluster();
  assert.equal(brokers.length, 1);
  return brokers[0].nodeId;
}

test('createPartitions grows a topic; shrinking is refused', async () => {
  const topic = newTopic('kafkajs-grow');
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
  await eventually(() => partitionCount(topic), 4, 'partitions after createPartitions');
  await assert.rejects(admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] }),
    (e) => e.type === 'INVALID_PARTITIONS');
  assert.equal(await partitionCount(topic), 4);
});

test('describeConfigs: topic override, default and broker keys with synonyms', async () => {
  const topic = newTopic('kafkajs-configs');
  await admin.createTopics({
    topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '777000' }] }],
    waitForLeaders: true,
  });
  const nid = String(await nodeId());
  const res = await admin.describeConfigs({
    includeSynonyms: true,
    resources: [
      { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'segment.bytes'] },
      { type: ConfigResourceTypes.BROKER, name: nid, configNames: ['num.partitions'] },
    ],
  });
  const [t, b] = res.resources;
  assert.equal(t.errorCode, 0);
  const byName = Object.fromEntries(t.configEntries.map((e) => [e.configName, e]));
  assert.deepEqual(Object.keys(byName).sort(), ['retention.ms', 'segment.bytes']);
  assert.equal(byName['retention.ms'].configValue, '777000');
  assert.equal(byName['retention.ms'].configSource, ConfigSource.TOPIC_CONFIG);
  assert.equal(byName['retention.ms'].configSynonyms[0].configName, 'retention.ms');
  assert.equal(byName['segment.bytes'].configSource, ConfigSource.DEFAULT_CONFIG);
  assert.equal(b.errorCode, 0);
  assert.equal(b.configEntries.length, 1);
  assert.equal(b.configEntries[0].configName, 'num.partitions');
  assert.equal(b.configEntries[0].readOnly, true);
});

test('deleteTopicRecords moves the low watermark', async () => {
  const topic = newTopic('kafkajs-trim');
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}` })) });
  await producer.disconnect();

  // kafkajs finds partition leaders only for topics its admin cluster already
  // tracks; createTopics does not add them, a metadata fetch does.
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '4' }] });
  let [p0] = await admin.fetchTopicOffsets(topic);
  assert.equal(p0.low, '4');
  assert.equal(p0.high, '10');
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '-1' }] });
  [p0] = await admin.fetchTopicOffsets(topic);
  assert.equal(p0.low, '10');
});

test('alterConfigs replaces the overrides and takes effect at once', async () => {
  const topic = newTopic('kafkajs-alter');
  await admin.createTopics({
    topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '60000' }] }],
    waitForLeaders: true,
  });
  const alter = (configEntries, validateOnly = false) => admin.alterConfigs({
    validateOnly,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries }],
  });
  const describe = async () => {
    const res = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'segment.ms'] }],
    });
    return Object.fromEntries(res.resources[0].configEntries.map((e) => [e.configName, e]));
  };
  await alter([{ name: 'retention.ms', value: '999000' }]);
  await eventually(async () => (await describe())['retention.ms'].configValue, '999000', 'retention.ms after alter');
  let byName = await describe();
  assert.equal(byName['retention.ms'].configValue, '999000');
  assert.equal(byName['retention.ms'].configSource, ConfigSource.TOPIC_CONFIG);
  // AlterConfigs replaces the whole set: segment.ms is back to its default.
  assert.equal(byName['segment.ms'].configSource, ConfigSource.DEFAULT_CONFIG);

  await alter([{ name: 'retention.ms', value: '1' }], true);
  byName = await describe();
  assert.equal(byName['retention.ms'].configValue, '999000', 'validateOnly changes nothing');

  await assert.rejects(alter([{ name: 'retention.ms', value: 'soon' }]), (e) => e.type === 'INVALID_CONFIG');
});
