// A CPU profile of the Worker and its Durable Objects under wrangler dev, taken through workerd's
// inspector (the Chrome DevTools Protocol on the dev server's --inspector-port), and a summary of
// where the time went: self time by function and file, the heaviest first.
/** Runs `work` while the inspector samples the Worker's isolate; resolves its result and the profile. */
export async function profiled(inspectorPort, work, { intervalUs = 200 } = {}) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  // wrangler's inspector proxy accepts only local or DevTools origins.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "http://127.0.0.1" } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) => reject(new Error(`inspector: ${e.message ?? e.error}`));
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)(msg);
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  const result = await work();
  const stopped = await send("Profiler.stop");
  ws.close();
  return { result, profile: stopped.result.profile };
}

/**
 * Self time by function, file and line, in ms, the heaviest `top`. A native frame (SQL's `exec`, a
 * builtin) is named with the script function that called it, which is what says whose it is.
 */
export function selfTimes(profile, top = 30) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const where = (f) => `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
  const self = new Map();
  profile.samples.forEach((s, i) => {
    const n = byId.get(s);
    let key = where(n.callFrame);
    if (!n.callFrame.url && n.callFrame.functionName && !n.callFrame.functionName.startsWith("(")) {
      let up = byId.get(parent.get(n.id));
      while (up && !up.callFrame.url) up = byId.get(parent.get(up.id));
      if (up) key = `${n.callFrame.functionName} ← ${where(up.callFrame)}`;
    }
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return { total, rows: [...self].sort((a, b) => b[1] - a[1]).slice(0, top) };
}
