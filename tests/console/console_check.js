// Drives the admin listener's web console in the system's headless Chromium
// (Debian's chromium, through playwright-core; no browser is downloaded).
// Run by tests/system/test_console.py, which owns the broker, the topic and
// the consumer group; the two talk in lines:
//   this script -> stdout: one JSON event per line, {"event": ..., ...}
//   test        -> stdin:  "drained" once the group has consumed and
//                           committed everything
// Steps: load the console with no console error, page error or failed
// request (any response >= 400 counts); the topic shows with its partitions;
// the brokers table and the throughput chart fill; the group shows lag > 0
// on partition 0 (event "lag-seen"); after "drained" the lag drops to 0
// (event "lag-zero"); the message browser shows the first records. A
// screenshot is saved after each step into --screenshots. Exit 0 when every
// check passed, 1 with {"event": "failed"} otherwise.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const { emit, launchChromium, parseArgs, runMain, watchProblems } = require("./chromium");

const STEP_TIMEOUT_MS = 30000;

// Resolves on the next stdin line equal to `word`.
function waitForLine(word) {
  const rl = readline.createInterface({ input: process.stdin });
  return new Promise((resolve, reject) => {
    rl.on("line", (line) => {
      if (line.trim() === word) {
        resolve();
        rl.close();
      }
    });
    rl.on("close", () => reject(new Error("stdin closed before '" + word + "'")));
  });
}

async function main() {
  const a = parseArgs(process.argv.slice(2), ["url", "topic", "partitions", "group", "screenshots", "records"]);
  fs.mkdirSync(a.screenshots, { recursive: true });
  const problems = [];
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    watchProblems(page, problems);
    const shot = async (name) => {
      const file = path.join(a.screenshots, name + ".png");
      await page.screenshot({ path: file, fullPage: true });
      emit("screenshot", { file });
    };
    const check = (cond, what) => {
      if (!cond) throw new Error(what);
    };

    // 1. The page and its views load.
    await page.goto(a.url + "/", { waitUntil: "load" });
    check((await page.title()) === "Spool console", "title");
    await page.waitForSelector("#brokers-body tr[data-broker]");
    await page.waitForSelector("#controller-id:not(:empty)");

    // 2. The topic, with every partition.
    const topicRows = "#topics-body tr[data-topic='" + a.topic + "']";
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length > 0, topicRows);
    const partitions = await page.$$eval(topicRows, (rows) => rows.map((r) => Number(r.dataset.partition)));
    check(partitions.length === Number(a.partitions),
      "topic " + a.topic + " shows " + partitions.length + " partitions, expected " + a.partitions);
    emit("topic-seen", { partitions });

    // 3. The throughput chart gets rates (two /metrics scrapes, 2 s apart).
    await page.waitForFunction(() => document.getElementById("rate-in").textContent.endsWith("/s"));
    await shot("01-overview");

    // 4. The group with lag on partition 0.
    const lagCell = "#groups-list .group[data-group='" + a.group + "'] tr[data-topic='" + a.topic +
      "'][data-partition='0']";
    await page.waitForFunction((sel) => {
      const row = document.querySelector(sel);
      return row !== null && row.dataset.lag !== "" && Number(row.dataset.lag) > 0;
    }, lagCell);
    const lag = await page.$eval(lagCell, (r) => Number(r.dataset.lag));
    await page.locator("#groups").scrollIntoViewIfNeeded();
    await shot("02-group-lag");
    emit("lag-seen", { lag });

    // 5. The test consumes everything and commits; the lag drops to 0.
    await waitForLine("drained");
    await page.waitForFunction((sel) => {
      const row = document.querySelector(sel);
      return row !== null && row.dataset.lag === "0";
    }, lagCell, { timeout: 2 * STEP_TIMEOUT_MS });
    await shot("03-group-drained");
    emit("lag-zero", {});

    // 6. The message browser: the first records of partition 0.
    await page.selectOption("#browse-topic", a.topic);
    await page.selectOption("#browse-partition", "0");
    await page.fill("#browse-offset", "0");
    await page.click("#browse-load");
    await page.waitForSelector("#records-body tr[data-offset='0']");
    const rows = await page.$$eval("#records-body tr", (trs) => trs.map((tr) => ({
      offset: Number(tr.dataset.offset),
      cells: Array.from(tr.cells).map((c) => c.textContent),
    })));
    check(rows.length === Math.min(20, Number(a.records)), "browser shows " + rows.length + " records");
    rows.forEach((r, i) => check(r.offset === i, "row " + i + " has offset " + r.offset));
    emit("records-seen", { first: rows[0].cells, count: rows.length });
    await page.click("#browse-next");
    await page.waitForSelector("#records-body tr[data-offset='20']");
    await page.locator("#browser").scrollIntoViewIfNeeded();
    await shot("04-browser");

    check(problems.length === 0, "problems in the page:\n" + problems.join("\n"));
    emit("passed", {});
  } finally {
    await browser.close();
  }
}

runMain(main);
