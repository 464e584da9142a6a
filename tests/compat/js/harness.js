// Starts and stops a real `spool broker` process for the kafkajs tests
// (same contract as ../harness.py): free loopback port, temp log dir, wait up
// to 20 s for the port to accept (else fail showing the broker's output),
// SIGTERM on stop with SIGKILL after 10 s, and the exit code is returned so
// the test can assert a clean shutdown. SPOOL_TEST_BOOTSTRAP=host:port makes
// startBroker() use that running broker instead (debugging aid only).
'use strict';

const { spawn } = require('node:child_process');
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

async function startBroker(overrides = {}) {
  const ext = process.env.SPOOL_TEST_BOOTSTRAP;
  if (ext) {
    return { bootstrap: ext, external: true, log: () => '(external broker)', stop: async () => 0 };
  }
  const bin = process.env.SPOOL_BIN || path.join(REPO_ROOT, 'build', 'spool');
  if (!fs.existsSync(bin)) throw new Error(`spool binary not found at ${bin} (set SPOOL_BIN)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-js-'));
  const port = await freePort();
  const args = ['broker',
    '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`,
    '--override', `log.dirs=${path.join(dir, 'data')}`];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);

  let output = '';
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  let exitCode = null;
  let exitSignal = null;
  const exited = new Promise((resolve) => proc.on('exit', (code, sig) => {
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

  return {
    bootstrap: `127.0.0.1:${port}`,
    port,
    external: false,
    alive: () => exitCode === null && exitSignal === null,
    log: () => output,
    // Resolves to the exit code (or the signal name if it had to be killed).
    async stop() {
      if (exitCode === null && exitSignal === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
      return exitCode ?? exitSignal;
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

module.exports = { startBroker, freePort, apiKeys };
