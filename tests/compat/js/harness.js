// Starts and stops a real `spool broker` process for the kafkajs tests
// (same contract as ../harness.py): free loopback port, temp log dir, wait up
// to 20 s for the port to accept (else fail showing the broker's output),
// SIGTERM on stop with SIGKILL after 10 s, and the exit code is returned so
// the test can assert a clean shutdown. SPOOL_TEST_BOOTSTRAP=host:port makes
// startBroker() use that running broker instead (debugging aid only).
// SPOOL_TEST_PEER=kafka (make test-peer) starts the Apache Kafka 4.4.0 peer
// through scripts/kafka-peer instead, with the same overrides minus Spool's own
// keys; stop() then resolves to 0 when the peer shut down cleanly. Both kinds
// also offer kill9() and restart() (same data dir and port).
'use strict';

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function portAccepts(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.setTimeout(200, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const KAFKA_PEER = path.join(REPO_ROOT, 'scripts', 'kafka-peer');
const SPOOL_ONLY_KEYS = new Set(['durable.writes', 'reactor.threads', 'log.level', 'log.format', 'admin.listener']);

// null against Spool, 'kafka' under SPOOL_TEST_PEER=kafka.
function peer() {
  const p = process.env.SPOOL_TEST_PEER || null;
  if (p !== null && p !== 'kafka') throw new Error(`SPOOL_TEST_PEER=${p}: only 'kafka' is known`);
  return p;
}

// Runs scripts/kafka-peer; resolves to { code, output } (never rejects on a
// non-zero exit, only on a time-out).
function runPeer(args, timeoutS) {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      KAFKA_PEER_WATCH_PID: String(process.pid), // no JVM outlives this process
      KAFKA_PEER_START_TIMEOUT: String(timeoutS),
      KAFKA_PEER_STOP_TIMEOUT: '60',
    };
    execFile(KAFKA_PEER, args, { env, timeout: (timeoutS + 30) * 1000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err && err.killed) return reject(new Error(`kafka-peer ${args[0]} timed out:\n${stdout}${stderr}`));
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
      });
  });
}

async function startKafkaPeer(overrides) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-js-kafka-'));
  let port = await freePort();
  const kv = Object.entries(overrides).filter(([k]) => !SPOOL_ONLY_KEYS.has(k)).map(([k, v]) => `${k}=${v}`);
  const logPath = path.join(dir, 'kafka.log');
  let running = false;
  let lastCode = null;
  let scriptOut = '';
  const start = async (mayRetryPort) => {
    const r = await runPeer(['start', dir, String(port), ...kv], 90);
    scriptOut = r.output;
    if (r.code !== 0) {
      await runPeer(['kill9', dir], 30); // nothing the failed start left may outlive the test
      if (mayRetryPort && /already in use/i.test(r.output) && r.output.includes(`:${port}`)) {
        port = await freePort();
        return start(false);
      }
      throw new Error(`kafka-peer start failed (${r.code}):\n${r.output}`);
    }
    running = true;
    return undefined;
  };
  await start(true);
  // The last 30 KB of kafka.log (Kafka logs a lot), then the script's output.
  const log = () => (fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').slice(-30000) : '') + scriptOut;
  const stopPeer = async () => {
    if (!running) return lastCode;
    const r = await runPeer(['stop', dir], 60);
    running = false;
    lastCode = r.code;
    if (r.code !== 0) scriptOut = r.output;
    return r.code;
  };
  return {
    get bootstrap() { return `127.0.0.1:${port}`; },
    get port() { return port; },
    external: false,
    peer: 'kafka',
    alive: () => running && !fs.existsSync(path.join(dir, 'kafka.exit')),
    log,
    async kill9() {
      if (running) { await runPeer(['kill9', dir], 30); running = false; lastCode = 'SIGKILL'; }
    },
    async restart() {
      const rc = await stopPeer();
      if (rc !== 0) throw new Error(`kafka peer exited with ${rc} on SIGTERM:\n${log()}`);
      await start(false);
    },
    async stop() {
      const rc = await stopPeer();
      fs.rmSync(dir, { recursive: true, force: true });
      return rc;
    },
  };
}

async function startBroker(overrides = {}) {
  const ext = process.env.SPOOL_TEST_BOOTSTRAP;
  if (ext) {
    return { bootstrap: ext, external: true, log: () => '(external broker)', stop: async () => 0 };
  }
  if (peer() === 'kafka') return startKafkaPeer(overrides);
  const bin = process.env.SPOOL_BIN || path.join(REPO_ROOT, 'build', 'spool');
  if (!fs.existsSync(bin)) throw new Error(`spool binary not found at ${bin} (set SPOOL_BIN)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-js-'));
  const port = await freePort();
  const args = ['broker',
    '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`,
    '--override', `log.dirs=${path.join(dir, 'data')}`];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);

  let output = '';
  let proc = null;
  let exitCode = null;
  let exitSignal = null;
  let exited = null;
  const launch = async () => {
    exitCode = null; exitSignal = null;
    output += output ? '\n----- restart -----\n' : '';
    proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (d) => { output += d; });
    proc.stderr.on('data', (d) => { output += d; });
    exited = new Promise((resolve) => proc.on('exit', (code, sig) => {
      exitCode = code; exitSignal = sig; resolve();
    }));
    const deadline = Date.now() + 20000;
    for (;;) {
      if (exitCode !== null || exitSignal !== null) {
        throw new Error(`broker exited (${exitCode ?? exitSignal}) before listening:\n${output}`);
      }
      if (await portAccepts(port)) break;
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`broker did not accept on port ${port} within 20 s:\n${output}`);
      }
      await sleep(50);
    }
  };
  const alive = () => exitCode === null && exitSignal === null;
  // Resolves to the exit code (or the signal name if it had to be killed).
  const terminate = async () => {
    if (alive()) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    }
    return exitCode ?? exitSignal;
  };
  await launch();

  return {
    bootstrap: `127.0.0.1:${port}`,
    port,
    external: false,
    peer: null,
    alive,
    log: () => output,
    async kill9() {
      if (alive()) { proc.kill('SIGKILL'); await exited; }
    },
    // Clean stop (exit 0 required) and start again on the same dir and port.
    async restart() {
      const rc = await terminate();
      if (rc !== 0) throw new Error(`broker exited with ${rc} on SIGTERM:\n${output}`);
      await launch();
    },
    async stop() {
      const rc = await terminate();
      fs.rmSync(dir, { recursive: true, force: true });
      return rc;
    },
  };
}

// Raw ApiVersions v0 probe: the list of api keys the broker serves. Used to
// decide whether group-consumer tests can run yet.
function apiKeys(bootstrap) {
  const [host, portStr] = bootstrap.split(',')[0].split(':');
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port: Number(portStr) });
    const clientId = Buffer.from('probe');
    const req = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
    let o = 0;
    o = req.writeInt32BE(req.length - 4, o);
    o = req.writeInt16BE(18, o); // ApiVersions
    o = req.writeInt16BE(0, o);
    o = req.writeInt32BE(1, o);
    o = req.writeInt16BE(clientId.length, o);
    clientId.copy(req, o);
    let buf = Buffer.alloc(0);
    s.setTimeout(10000, () => { s.destroy(); reject(new Error('ApiVersions probe timed out')); });
    s.on('error', reject);
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < 4 + buf.readInt32BE(0)) return;
      s.destroy();
      // size, correlation id, error code, array count, then (key, min, max).
      const err = buf.readInt16BE(8);
      if (err !== 0) return reject(new Error(`ApiVersions error ${err}`));
      const n = buf.readInt32BE(10);
      const keys = new Map();
      for (let i = 0; i < n; i++) {
        const at = 14 + i * 6;
        keys.set(buf.readInt16BE(at), [buf.readInt16BE(at + 2), buf.readInt16BE(at + 4)]);
      }
      resolve(keys);
    });
    s.write(req);
  });
}

module.exports = { startBroker, freePort, apiKeys, peer };
