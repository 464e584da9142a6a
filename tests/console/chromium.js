// The one way the console scripts start a browser: Debian's chromium
// (/usr/bin/chromium, from scripts/install-deps) driven by playwright-core
// from this folder's node_modules (npm ci of package-lock.json); no browser
// is ever downloaded. Used by console_check.js (tests/system/test_console.py)
// and console_load_time.js (spool bench, operability/console-1000-partitions).
"use strict";

const { chromium } = require("playwright-core");

const CHROMIUM = "/usr/bin/chromium";

// A headless chromium; the caller closes it (browser.close()).
function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

// "--name value ..." into {name: value}; throws naming the first of
// `required` that is missing.
function parseArgs(argv, required) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || argv[i + 1] === undefined) throw new Error("usage: --name value ...");
    out[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of required) {
    if (!(k in out)) throw new Error("missing --" + k);
  }
  return out;
}

// One JSON event per line on stdout: {"event": ..., ...fields}.
function emit(event, fields) {
  process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
}

// Pushes onto `problems` whatever goes wrong in `page`: console errors,
// uncaught page errors, failed requests and HTTP answers of 400 and above.
function watchProblems(page, problems) {
  page.on("console", (m) => {
    if (m.type() === "error") problems.push("console error: " + m.text());
  });
  page.on("pageerror", (e) => problems.push("page error: " + e.message));
  page.on("requestfailed", (r) => problems.push("request failed: " + r.url() + " " + r.failure().errorText));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push("HTTP " + r.status() + " for " + r.url());
  });
}

// Runs the script's async main: exit 0 when it resolves; a "failed" event
// with the error and exit 1 when it throws.
function runMain(main) {
  main().then(
    () => process.exit(0),
    (e) => {
      emit("failed", { error: String(e && e.stack ? e.stack : e) });
      process.exit(1);
    });
}

module.exports = { CHROMIUM, launchChromium, parseArgs, emit, runMain, watchProblems };
