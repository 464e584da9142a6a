// Spool console: reads this admin listener's views and draws them.
//   /v1/cluster, /v1/topics, /v1/groups  every VIEW_REFRESH_MS
//   /metrics                             every METRICS_REFRESH_MS: the
//       all-topics byte counters become in/out rates on a canvas chart
//   /v1/topics/{t}/partitions/{p}/records  on demand (the message browser)
// Every value from the broker reaches the page as text (textContent), never
// as markup. Rows carry data-* attributes (topic, partition, group, lag) that
// tests/console/console_check.js reads.
"use strict";

const VIEW_REFRESH_MS = 3000;
const METRICS_REFRESH_MS = 2000;
const CHART_POINTS = 90; // three minutes at one sample per 2 s

const state = {
  brokerId: null,
  topics: [],
  samples: [], // {t: seconds, in: bytes/s, out: bytes/s}
  lastCounters: null, // {t, in, out}
  nextOffset: null,
};

// ---- small DOM helpers ----

function $(id) {
  return document.getElementById(id);
}

// el("td", {className: "num"}, "text" | Node, ...)
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else node[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function replaceRows(tbody, rows) {
  tbody.replaceChildren(...rows);
}

function formatBytes(n) {
  if (n === null || n === undefined) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return (i === 0 ? v.toFixed(0) : v.toFixed(1)) + " " + units[i];
}

function orDash(v) {
  return v === null || v === undefined ? "–" : String(v);
}

function setStatus(text, isError) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("error", Boolean(isError));
}

async function getJson(path) {
  const r = await fetch(path, { cache: "no-store" });
  const body = await r.json();
  if (!r.ok) {
    const err = new Error(body.error || r.status + " " + r.statusText);
    err.body = body;
    throw err;
  }
  return body;
}

// ---- cluster ----

function renderCluster(c) {
  state.brokerId = c.broker_id;
  $("broker-line").textContent = "broker " + c.broker_id + " · cluster " + c.cluster_id;
  $("cluster-id").textContent = c.cluster_id;
  $("cluster-mode").textContent = c.mode;
  $("controller-id").textContent = c.controller_id;
  const rows = c.brokers.map((b) => {
    const role = el("td", {});
    if (b.id === c.controller_id) role.append(el("span", { className: "badge controller" }, "controller"));
    if (b.id === c.broker_id) role.append(" ", el("span", { className: "badge" }, "this broker"));
    const eps = b.endpoints.map((e) => (e.listener === e.security_protocol ? "" : e.listener + " ") +
      e.security_protocol + "://" + e.host + ":" + e.port);
    return el("tr", { dataset: { broker: b.id } },
      el("td", { className: "num" }, b.id), role, el("td", {}, orDash(b.rack)), el("td", { className: "mono" }, eps.join(", ")));
  });
  replaceRows($("brokers-body"), rows);
}

// ---- topics ----

function renderTopics(t) {
  state.topics = t.topics;
  const showInternal = $("show-internal").checked;
  const rows = [];
  for (const topic of t.topics) {
    if (topic.internal && !showInternal) continue;
    topic.partitions.forEach((p, i) => {
      const local = p.local;
      const classes = [];
      if (p.leader < 0 || (local && local.offline)) classes.push("offline");
      else if (p.isr.length < p.replicas.length) classes.push("under-replicated");
      rows.push(el("tr", { className: classes.join(" "), dataset: { topic: topic.name, partition: p.partition } },
        el("td", {}, i === 0 ? topic.name : ""),
        el("td", { className: "num" }, p.partition),
        el("td", { className: "num" }, p.leader < 0 ? "none" : p.leader),
        el("td", {}, p.replicas.join(", ")),
        el("td", {}, p.isr.join(", ")),
        el("td", { className: "num" }, local ? formatBytes(local.size_bytes) : "not here"),
        el("td", { className: "num" }, local ? local.log_start_offset : "–"),
        el("td", { className: "num" }, local && local.high_watermark !== undefined ? local.high_watermark : "–")));
    });
  }
  replaceRows($("topics-body"), rows);
  fillTopicSelect();
}

// ---- consumer groups ----

function renderGroups(g) {
  $("groups-coordinator").textContent = g.coordinator;
  $("groups-error").textContent = g.error ? "(" + g.error + ": some groups are still loading)" : "";
  const list = $("groups-list");
  if (g.groups.length === 0) {
    list.replaceChildren(el("p", { className: "muted", id: "no-groups" }, "No consumer groups."));
    return;
  }
  const blocks = g.groups.map((group) => {
    const totalLag = el("span", { className: "total-lag" + (group.total_lag > 0 ? " lag-positive" : "") },
      group.total_lag + (group.total_lag_complete ? "" : "+"));
    const head = el("h3", {}, group.group_id, " ",
      el("span", { className: "badge " + group.state }, group.state), " ",
      el("span", { className: "muted" }, (group.protocol_type || "no protocol type") +
        (group.protocol ? " / " + group.protocol : "") + " · " + group.members.length + " member(s) · lag "),
      totalLag);
    const members = group.members.map((m) => el("tr", { dataset: { member: m.member_id } },
      el("td", { className: "mono" }, m.member_id),
      el("td", {}, m.client_id),
      el("td", {}, m.host),
      el("td", {}, m.assignment_error ? "undecodable: " + m.assignment_error
        : m.assignment.map((a) => a.topic + "-" + a.partition).join(", "))));
    const parts = group.partitions.map((p) => el("tr",
      { dataset: { topic: p.topic, partition: p.partition, lag: p.lag === null ? "" : p.lag } },
      el("td", {}, p.topic),
      el("td", { className: "num" }, p.partition),
      el("td", { className: "num" }, orDash(p.committed_offset)),
      el("td", { className: "num" }, orDash(p.log_end_offset)),
      el("td", { className: "num lag" + (p.lag > 0 ? " lag-positive" : "") }, p.lag === null ? "unknown" : p.lag),
      el("td", { className: "mono" }, orDash(p.member_id))));
    const block = el("div", { className: "group", dataset: { group: group.group_id, totalLag: group.total_lag } }, head);
    if (members.length > 0) {
      block.append(el("table", { className: "members" },
        el("thead", {}, el("tr", {}, el("th", {}, "Member"), el("th", {}, "Client id"), el("th", {}, "Host"),
          el("th", {}, "Assigned partitions"))),
        el("tbody", {}, ...members)));
    }
    block.append(el("table", { className: "offsets" },
      el("thead", {}, el("tr", {}, el("th", {}, "Topic"), el("th", { className: "num" }, "Partition"),
        el("th", { className: "num" }, "Committed"), el("th", { className: "num" }, "Log end"),
        el("th", { className: "num" }, "Lag"), el("th", {}, "Member"))),
      el("tbody", {}, ...parts)));
    return block;
  });
  list.replaceChildren(...blocks);
}

async function refreshViews() {
  try {
    const [cluster, topics, groups] = await Promise.all([getJson("/v1/cluster"), getJson("/v1/topics"),
      getJson("/v1/groups")]);
    renderCluster(cluster);
    renderTopics(topics);
    renderGroups(groups);
    setStatus("updated " + new Date().toLocaleTimeString(), false);
  } catch (e) {
    setStatus("refresh failed: " + e.message, true);
  }
}

// ---- throughput ----

// The value of an all-topics sample (no topic label) of `name` in Prometheus
// text, or null when absent.
function counterValue(text, name) {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    let labels = "";
    let value = rest;
    if (rest.startsWith("{")) {
      const close = rest.indexOf("}");
      labels = rest.slice(1, close);
      value = rest.slice(close + 1);
    } else if (!rest.startsWith(" ")) {
      continue; // a longer name with this prefix
    }
    if (/(^|,)topic=/.test(labels)) continue;
    const v = Number(value.trim().split(/\s+/)[0]);
    if (Number.isFinite(v)) return v;
  }
  return null;
}

async function refreshMetrics() {
  let text;
  try {
    const r = await fetch("/metrics", { cache: "no-store" });
    text = await r.text();
  } catch (e) {
    setStatus("metrics failed: " + e.message, true);
    return;
  }
  const now = performance.now() / 1000;
  const bytesIn = counterValue(text, "kafka_server_brokertopicmetrics_bytesin_total");
  const bytesOut = counterValue(text, "kafka_server_brokertopicmetrics_bytesout_total");
  if (bytesIn === null || bytesOut === null) return;
  const last = state.lastCounters;
  state.lastCounters = { t: now, in: bytesIn, out: bytesOut };
  if (last === null || now <= last.t) return;
  const dt = now - last.t;
  // A counter that went down means the broker restarted: start from there.
  const rateIn = bytesIn >= last.in ? (bytesIn - last.in) / dt : 0;
  const rateOut = bytesOut >= last.out ? (bytesOut - last.out) / dt : 0;
  state.samples.push({ t: now, in: rateIn, out: rateOut });
  if (state.samples.length > CHART_POINTS) state.samples.shift();
  $("rate-in").textContent = formatBytes(rateIn) + "/s";
  $("rate-out").textContent = formatBytes(rateOut) + "/s";
  drawChart();
}

// A "nice" axis maximum at or above v bytes/s: 1, 2 or 5 times a power of
// ten, in the binary unit (KiB, MiB...) that formatBytes will print.
function niceMax(v) {
  if (v <= 0) return 1024;
  const unit = Math.pow(1024, Math.max(0, Math.floor(Math.log(v) / Math.log(1024))));
  const scaled = v / unit;
  const p = Math.pow(10, Math.floor(Math.log10(scaled)));
  for (const m of [1, 2, 5, 10]) if (m * p >= scaled) return m * p * unit;
  return 10 * p * unit;
}

function drawChart() {
  const canvas = $("throughput-chart");
  const ratio = window.devicePixelRatio || 1;
  const cssWidth = canvas.clientWidth || canvas.width;
  const cssHeight = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(cssWidth * ratio)) canvas.width = Math.round(cssWidth * ratio);
  if (canvas.height !== Math.round(cssHeight * ratio)) canvas.height = Math.round(cssHeight * ratio);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, cssWidth, cssHeight);
  const left = 80;
  const right = 10;
  const top = 10;
  const bottom = 24;
  const w = cssWidth - left - right;
  const h = cssHeight - top - bottom;
  const samples = state.samples;
  const peak = samples.reduce((m, s) => Math.max(m, s.in, s.out), 0);
  const yMax = niceMax(peak);
  const styles = getComputedStyle(document.documentElement);

  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = styles.getPropertyValue("--muted").trim() || "#666";
  ctx.strokeStyle = styles.getPropertyValue("--line").trim() || "#ddd";
  ctx.lineWidth = 1;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (let i = 0; i <= 4; i++) {
    const y = top + h - (h * i) / 4;
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + w, y);
    ctx.stroke();
    ctx.fillText(formatBytes((yMax * i) / 4) + "/s", left - 6, y);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const span = CHART_POINTS * (METRICS_REFRESH_MS / 1000);
  for (let s = 0; s <= span; s += 30) {
    const x = left + w - (w * s) / span;
    ctx.fillText(s === 0 ? "now" : "-" + s + "s", x, top + h + 6);
  }
  if (samples.length < 2) return;
  const tEnd = samples[samples.length - 1].t;
  const xOf = (t) => left + w - (w * (tEnd - t)) / span;
  const yOf = (v) => top + h - (h * v) / yMax;
  for (const [key, color] of [["in", "--in"], ["out", "--out"]]) {
    ctx.strokeStyle = styles.getPropertyValue(color).trim() || "#000";
    ctx.lineWidth = 2;
    ctx.beginPath();
    samples.forEach((s, i) => {
      const x = Math.max(left, xOf(s.t));
      if (i === 0) ctx.moveTo(x, yOf(s[key]));
      else ctx.lineTo(x, yOf(s[key]));
    });
    ctx.stroke();
  }
}

// ---- message browser ----

function fillTopicSelect() {
  const select = $("browse-topic");
  const current = select.value;
  const names = state.topics.filter((t) => !t.internal || $("show-internal").checked).map((t) => t.name);
  const have = Array.from(select.options).map((o) => o.value);
  if (names.join("\n") !== have.join("\n")) {
    select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    if (names.includes(current)) select.value = current;
  }
  fillPartitionSelect();
}

function fillPartitionSelect() {
  const select = $("browse-partition");
  const current = select.value;
  const topic = state.topics.find((t) => t.name === $("browse-topic").value);
  const parts = topic ? topic.partitions.map((p) => String(p.partition)) : [];
  const have = Array.from(select.options).map((o) => o.value);
  if (parts.join("\n") === have.join("\n")) return;
  select.replaceChildren(...parts.map((p) => el("option", { value: p }, p)));
  if (parts.includes(current)) select.value = current;
}

// A byte field of a record (key, value, header value) as a table cell's content.
function bytesCell(obj, name) {
  const v = obj[name];
  if (v === null || v === undefined) return el("span", { className: "muted" }, "null");
  const span = el("span", {}, v);
  if (obj[name + "_encoding"] === "base64") span.prepend(el("span", { className: "badge base64" }, "base64"), " ");
  if (obj[name + "_truncated"]) span.append(el("span", { className: "muted" }, " … (" + obj[name + "_size"] + " bytes)"));
  return span;
}

async function loadRecords(offset) {
  const topic = $("browse-topic").value;
  const partition = $("browse-partition").value;
  const info = $("browse-info");
  if (!topic || partition === "") {
    info.textContent = "Pick a topic and a partition.";
    return;
  }
  const params = new URLSearchParams();
  if (offset !== "" && offset !== null) params.set("offset", offset);
  params.set("limit", $("browse-limit").value || "20");
  const path = "/v1/topics/" + encodeURIComponent(topic) + "/partitions/" + encodeURIComponent(partition) +
    "/records?" + params.toString();
  const body = $("records-body");
  let page;
  try {
    const r = await fetch(path, { cache: "no-store" });
    page = await r.json();
    if (!r.ok) {
      info.textContent = page.error + (page.high_watermark !== undefined
        ? " (log start " + page.log_start_offset + ", high watermark " + page.high_watermark + ")" : "");
      replaceRows(body, []);
      $("browse-next").disabled = true;
      return;
    }
  } catch (e) {
    info.textContent = "request failed: " + e.message;
    return;
  }
  state.nextOffset = page.next_offset;
  $("browse-offset").value = page.offset;
  $("browse-next").disabled = page.next_offset >= page.high_watermark;
  info.textContent = topic + "-" + partition + ": " + page.records.length + " record(s) from offset " + page.offset +
    " · log start " + page.log_start_offset + " · high watermark " + page.high_watermark +
    " · next " + page.next_offset;
  replaceRows(body, page.records.map((rec) => {
    const headers = el("td", {});
    rec.headers.forEach((h, i) => {
      if (i > 0) headers.append(el("br", {}));
      headers.append(bytesCell(h, "key"), "=", bytesCell(h, "value"));
    });
    return el("tr", { dataset: { offset: rec.offset } },
      el("td", { className: "num" }, rec.offset),
      el("td", { title: rec.timestamp_type }, new Date(rec.timestamp).toISOString()),
      el("td", { className: "mono" }, bytesCell(rec, "key")),
      el("td", { className: "mono" }, bytesCell(rec, "value")),
      headers);
  }));
}

// ---- start ----

function start() {
  $("show-internal").addEventListener("change", refreshViews);
  $("browse-topic").addEventListener("change", fillPartitionSelect);
  $("browse-form").addEventListener("submit", (e) => {
    e.preventDefault();
    loadRecords($("browse-offset").value);
  });
  $("browse-next").addEventListener("click", () => loadRecords(state.nextOffset));
  window.addEventListener("resize", drawChart);
  refreshViews();
  refreshMetrics();
  drawChart();
  setInterval(refreshViews, VIEW_REFRESH_MS);
  setInterval(refreshMetrics, METRICS_REFRESH_MS);
}

start();
