// A CPU profile of wrangler dev's Worker (its objects run in the same isolate) while a piece of a
// bench runs, taken over the inspector wrangler dev serves (Chrome DevTools Protocol, `Profiler`),
// summed by function: where the time of a cold start or of a burst of writes goes.
import { request as httpRequest } from "node:http";

function getJson(url) {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        try {
          resolve(JSON.parse(text));
        } catch (err) {
          reject(err);
        }
      });
    })
      .on("error", reject)
      .end();
  });
}

/** One DevTools session with the Worker's isolate: `send(method, params)` answers the result. */
async function session(inspectorPort) {
  const targets = await getJson(`http://127.0.0.1:${inspectorPort}/json`);
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target) throw new Error(`no inspector target on port ${inspectorPort}`);
  // The inspector proxy takes connections from a local origin only.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "http://127.0.0.1" } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (ev) => reject(new Error(`inspector connection to ${target.webSocketDebuggerUrl} failed: ${ev.message ?? ev.type}`));
  });
  let next = 1;
  const waiting = new Map();
  ws.onmessage = (ev) => {
    const msg = JSON.parse(String(ev.data));
    const w = msg.id !== undefined ? waiting.get(msg.id) : undefined;
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`${w.method}: ${msg.error.message}`));
    else w.resolve(msg.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/**
 * Runs `work` under the profiler (sampling every `intervalUs`) and answers its result with the
 * profile summed by function: self and total milliseconds, most self time first.
 */
export async function cpuProfile(inspectorPort, work, { intervalUs = 200 } = {}) {
  const s = await session(inspectorPort);
  try {
    await s.send("Profiler.enable");
    await s.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await s.send("Profiler.start");
    const result = await work();
    const { profile } = await s.send("Profiler.stop");
    return { result, functions: summarise(profile) };
  } finally {
    s.close();
  }
}

function summarise(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => hits.set(id, (hits.get(id) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000));
  const where = (f) => `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
  // A native frame (SQL's `exec`, a builtin) is named with the script function that called it: that says whose it is.
  const name = (n) => {
    const f = n.callFrame;
    if (f.url || !f.functionName || f.functionName.startsWith("(")) return where(f);
    let up = byId.get(parent.get(n.id));
    while (up && !up.callFrame.url) up = byId.get(parent.get(up.id));
    return up ? `${f.functionName} ← ${where(up.callFrame)}` : where(f);
  };
  const self = new Map();
  const total = new Map();
  for (const [id, ms] of hits) {
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = name(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + ms);
    }
  }
  return [...total.keys()].map((k) => ({ fn: k, selfMs: self.get(k) ?? 0, totalMs: total.get(k) })).sort((a, b) => b.selfMs - a.selfMs);
}
