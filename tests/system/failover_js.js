// kafkajs through a leader failover (driven by tests/system/test_failover_clients.py):
// an idempotent acks=all producer sends N unique values to partition 0 of TOPIC one at a
// time, prints {"ev":"half"} after KILL_AT acks (the Python test then kill -9s the leader)
// and keeps going; then a read_committed consumer (a fresh group, fromBeginning) reads
// partition 0 up to its high watermark. One JSON line per event on stdout:
//   send {v,t}  ack {v,offset,t}  fail {v,err,definite,t}  half  produced  read {offset,v}  done
// t = wall-clock seconds. Usage: node failover_js.js BOOTSTRAP TOPIC N KILL_AT PREFIX DEADLINE_S
'use strict';

const path = require('node:path');
const { Kafka, logLevel, Partitioners } = require(
  path.join(__dirname, '..', 'compat', 'js', 'node_modules', 'kafkajs'));

const [bootstrap, topic, nStr, killAtStr, prefix, deadlineStr] = process.argv.slice(2);
const n = Number(nStr);
const killAt = Number(killAtStr);
const deadline = Date.now() + Number(deadlineStr) * 1000;
const now = () => Date.now() / 1000;
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');

// Errors that mean "not written" for sure; anything else (timeouts, retries exhausted,
// lost connections) leaves the outcome unknown.
const DEFINITE = new Set(['INVALID_RECORD', 'MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE',
  'INVALID_TOPIC_EXCEPTION', 'TOPIC_AUTHORIZATION_FAILED']);

async function main() {
  const kafka = new Kafka({
    clientId: `failover-${prefix}`, brokers: bootstrap.split(','), logLevel: logLevel.NOTHING,
    connectionTimeout: 3000, requestTimeout: 10000,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 30 },
  });
  const producer = kafka.producer({
    idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 30 },
  });
  await producer.connect();
  let acked = 0;
  for (let i = 0; i < n && Date.now() < deadline; i++) {
    const v = `${prefix}-${i}`;
    emit({ ev: 'send', v, t: now() });
    try {
      const [meta] = await producer.send({ topic, acks: -1, timeout: 10000,
        messages: [{ value: v, partition: 0 }] });
      emit({ ev: 'ack', v, offset: Number(meta.baseOffset), t: now() });
      acked++;
      if (acked === killAt) emit({ ev: 'half' });
    } catch (e) {
      const type = (e.cause && e.cause.type) || e.type || '';
      emit({ ev: 'fail', v, err: `${e.name}: ${e.message} ${type}`, definite: DEFINITE.has(type), t: now() });
    }
  }
  await producer.disconnect();
  emit({ ev: 'produced' });

  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const high = Number(offsets.find((o) => o.partition === 0).high);
  const consumer = kafka.consumer({ groupId: `failover-${prefix}-reader`, readUncommitted: false,
    sessionTimeout: 10000, heartbeatInterval: 1000, maxWaitTimeInMs: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let next = 0;
  await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (next >= high) { clearInterval(timer); resolve(); } else if (Date.now() > deadline) {
        clearInterval(timer); reject(new Error(`consumer reached ${next} of ${high} by the deadline`));
      }
    }, 50);
    if (high === 0) return;
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (partition !== 0) return;
        emit({ ev: 'read', offset: Number(message.offset), v: message.value.toString() });
        next = Number(message.offset) + 1;
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  emit({ ev: 'done', high });
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`failover_js: ${e.stack || e}\n`);
  process.exit(1);
});
