#!/usr/bin/env node
// Times the admin listener's web console in the system's headless Chromium
// (chromium.js) for `spool bench` (operability/console-1000-partitions,
// src/bench/operability_plan.cc), which owns the broker and its topics.
//   node console_load_time.js --url http://127.0.0.1:PORT --topic-prefix P
//                             --partitions N --loads L
// One untimed load first (the browser's own start-up), then L loads, each in
// a fresh browser context (empty cache). Each timed load prints one line:
//   {"event": "load", "table_ms": ..., "dom_content_loaded_ms": ...,
//    "load_ms": ..., "rows": N}
// All times are from the navigation's start (performance.timeOrigin):
// table_ms is the first animation frame after the topics table
// (#topics-body, console.js renderTopics) holds a row for each of the N
// partitions of the topics named P*; the other two are the navigation
// timing entry's domContentLoadedEventEnd and loadEventEnd. Exit 0 when
// every load was timed; 1 with {"event": "failed", "error": ...} otherwise
// (a console error, page error or failed request counts as a failure).
"use strict";

const { emit, launchChromium, parseArgs, runMain, watchProblems } = require("./chromium");

const LOAD_TIMEOUT_MS = 60000;

// Runs in the page before its own scripts: records when the topics table
// first holds `want` rows of topics named prefix*, at the next frame.
function watchRows([prefix, want]) {
  const count = () => {
    const body = document.getElementById("topics-body");
    if (body === null) return 0;
    let n = 0;
    for (const tr of body.rows) if ((tr.dataset.topic || "").startsWith(prefix)) n++;
    return n;
  };
  const obs = new MutationObserver(() => {
    if (count() < want) return;
    obs.disconnect();
    requestAnimationFrame(() => {
      window.__spoolTableMs = performance.now();
    });
  });
  obs.observe(document, { childList: true, subtree: true });
}

async function loadOnce(browser, a, want) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(LOAD_TIMEOUT_MS);
    const problems = [];
    watchProblems(page, problems);
    await page.addInitScript(watchRows, [a["topic-prefix"], want]);
    await page.goto(a.url + "/", { waitUntil: "load" });
    await page.waitForFunction(() => window.__spoolTableMs !== undefined, null, { polling: 50 });
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      let rows = 0;
      for (const tr of document.getElementById("topics-body").rows) if (tr.dataset.topic) rows++;
      return {
        table_ms: window.__spoolTableMs,
        dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        load_ms: nav.loadEventEnd,
        rows,
      };
    });
    if (problems.length > 0) throw new Error("problems in the page:\n" + problems.join("\n"));
    return t;
  } finally {
    await context.close();
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2), ["url", "topic-prefix", "partitions", "loads"]);
  const want = Number(a.partitions);
  const loads = Number(a.loads);
  if (!(want > 0) || !(loads > 0)) throw new Error("--partitions and --loads must be positive");
  const browser = await launchChromium();
  try {
    await loadOnce(browser, a, want);  // warm-up, untimed
    for (let i = 0; i < loads; i++) emit("load", await loadOnce(browser, a, want));
  } finally {
    await browser.close();
  }
}

runMain(main);
