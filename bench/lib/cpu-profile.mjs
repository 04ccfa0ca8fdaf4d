// Reading a V8 CPU profile (.cpuprofile): self and inclusive time per function, time per part of
// the code base, and an SVG flame graph. Used by bench/profile.js.

const shortUrl = (url) => url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^file:\/\//, '');

/** A function's name as shown: `name file:line`. */
export function frameName(node) {
  const cf = node.callFrame;
  const where = cf.url ? ` ${shortUrl(cf.url)}:${cf.lineNumber + 1}` : '';
  return `${cf.functionName || '(anonymous)'}${where}`;
}

/**
 * Which part of the system a frame belongs to, for the summary by area. A native frame (a C++
 * function: SQLite's statement.run, a socket write, a hash) counts for the area that called it.
 */
export function areaOf(node, parentOf = () => undefined) {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === '(idle)') return 'idle (waiting for I/O)';
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(program)' || functionName === '(root)') return 'V8 (program)';
    if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(functionName)) return 'node: socket writes';
    const caller = parentOf(node);
    return caller ? areaOf(caller, parentOf) : 'native';
  }
  if (url.includes('node_modules/better-sqlite3')) return 'SQLite (better-sqlite3)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `package ${nm[1]}`;
  if (url.startsWith('node:')) {
    if (/node:(_http|http|internal\/http)/.test(url)) return 'node: http';
    if (/node:(net|internal\/(stream|streams|net))/.test(url)) return 'node: net and streams';
    return 'node: other';
  }
  const m = /\/dist\/([^/]+)\//.exec(url);
  return m ? `agentport ${m[1]}` : 'other';
}

/** Self time (ms) per sample node id, and the total. */
function selfTimes(profile) {
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
    total += dt;
  }
  return { self, total };
}

/** The profile summarised: top functions by self and by inclusive time, and time by area. */
export function summarise(profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const { self, total } = selfTimes(profile);
  const parentOf = (node) => byId.get(parent.get(node.id));
  const selfBy = new Map();
  const inclusiveBy = new Map();
  const areas = new Map();
  for (const [id, ms] of self) {
    const node = byId.get(id);
    selfBy.set(frameName(node), (selfBy.get(frameName(node)) ?? 0) + ms);
    const area = areaOf(node, parentOf);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    // Inclusive: once per distinct function on the stack (recursion counted once).
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const name = frameName(byId.get(cur));
      if (seen.has(name) || name.startsWith('(root)')) continue;
      seen.add(name);
      inclusiveBy.set(name, (inclusiveBy.get(name) ?? 0) + ms);
    }
  }
  const rank = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / total }));
  return { totalMs: total, self: rank(selfBy), inclusive: rank(inclusiveBy), areas: rank(areas) };
}

const escapeXml = (s) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

/** An SVG flame graph (root at the bottom, width = time); frames narrower than `minShare` are left out. */
export function flameGraphSvg(profile, { title = 'CPU profile', width = 1400, minShare = 0.002 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const parentOf = (node) => byId.get(parent.get(node.id));
  const { self, total } = selfTimes(profile);
  const inclusive = new Map();
  const sum = (id) => {
    const n = byId.get(id);
    let t = self.get(id) ?? 0;
    for (const c of n.children ?? []) t += sum(c);
    inclusive.set(id, t);
    return t;
  };
  const root = profile.nodes[0].id;
  sum(root);
  const rowHeight = 16;
  const rects = [];
  let depthMax = 0;
  const place = (id, x, depth) => {
    const t = inclusive.get(id);
    if (t / total < minShare) return;
    const n = byId.get(id);
    depthMax = Math.max(depthMax, depth);
    rects.push({ x, w: t, depth, name: depth === 0 ? 'all' : frameName(n), area: depth === 0 ? '' : areaOf(n, parentOf) });
    let cx = x;
    for (const c of n.children ?? []) {
      place(c, cx, depth + 1);
      cx += inclusive.get(c);
    }
  };
  place(root, 0, 0);
  const height = (depthMax + 1) * rowHeight + 40;
  const hue = (area) => {
    if (area.startsWith('agentport')) return 'hsl(28,85%,62%)';
    if (area.startsWith('SQLite')) return 'hsl(205,70%,62%)';
    if (area.startsWith('node')) return 'hsl(120,40%,60%)';
    if (area.startsWith('garbage') || area.startsWith('native')) return 'hsl(0,0%,72%)';
    if (area.startsWith('idle')) return 'hsl(0,0%,90%)';
    return 'hsl(280,40%,70%)';
  };
  const scale = width / total;
  const body = rects
    .map((r) => {
      const x = (r.x * scale).toFixed(1);
      const w = Math.max(0.5, r.w * scale).toFixed(1);
      const y = height - (r.depth + 1) * rowHeight - 10;
      const label = r.w * scale > 40 ? escapeXml(r.name.slice(0, Math.floor((r.w * scale) / 6.5))) : '';
      const tip = `${escapeXml(r.name)} — ${((100 * r.w) / total).toFixed(1)} %`;
      return `<g><title>${tip}</title><rect x="${x}" y="${y}" width="${w}" height="${rowHeight - 1}" fill="${hue(r.area)}"/><text x="${(Number(x) + 3).toFixed(1)}" y="${y + 12}">${label}</text></g>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">
<text x="4" y="16" font-size="13">${escapeXml(title)}</text>
${body}
</svg>
`;
}
