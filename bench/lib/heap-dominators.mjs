// What a heap snapshot taken under load holds that an idle one taken after it no longer does (the
// requests in flight: what a scavenge copies), as a dominator tree over those objects only, with
// each object's retained bytes. V8 keeps an object's snapshot id across the snapshots of one
// process, so "gone by the idle snapshot" is an id missing from it. Siblings of the same kind are
// summed into one line with their count ("(7)": one per request in flight). Used by
// bench/inflight-heap.js; alone: `node bench/lib/heap-dominators.mjs mid.heapsnapshot idle.heapsnapshot [minBytes] [depth]`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Code, V8's own caches and shapes change with compilation, not with requests: left out. */
const OUTSIDE = new Set(['synthetic', 'code', 'native', 'object shape']);

function load(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const m = s.snapshot.meta;
  return { s, W: m.node_fields.length, EW: m.edge_fields.length, nt: m.node_types[0], et: m.edge_types[0] };
}

/** The dominator tree of the objects in `midFile` that `idleFile` no longer has, as printable lines. */
export function inflightDominators(midFile, idleFile, minBytes = 300, maxDepth = 12) {
  const idle = load(idleFile);
  const idleIds = new Set();
  for (let i = 2; i < idle.s.nodes.length; i += idle.W) idleIds.add(idle.s.nodes[i]);
  const { s, W, EW, nt, et } = load(midFile);
  const N = s.nodes.length / W;
  const firstEdge = new Uint32Array(N + 1);
  for (let i = 0, e = 0; i < N; i++) {
    firstEdge[i] = e;
    e += s.nodes[i * W + 4] * EW;
    firstEdge[i + 1] = e;
  }
  const type = (i) => nt[s.nodes[i * W]];
  const name = (i) => s.strings[s.nodes[i * W + 1]];
  const self = (i) => s.nodes[i * W + 3];
  const edgeName = (e) => (et[s.edges[e]] === 'element' || et[s.edges[e]] === 'hidden' ? `[${s.edges[e + 1]}]` : s.strings[s.edges[e + 1]]);
  // an async function's frame is a Generator: name it by its function
  const generatorOf = (i) => {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EW) if (s.strings[s.edges[e + 1]] === 'function' && et[s.edges[e]] !== 'element') return name(s.edges[e + 2] / W);
    return '';
  };
  const label = (i) => {
    const t = type(i);
    let n = name(i);
    if (t.endsWith('string')) n = JSON.stringify(n.slice(0, 30));
    else if (n === 'Generator') n = `Generator<${generatorOf(i)}>`;
    return `${t}:${n.slice(0, 50)}`;
  };
  // nodes 1..n-1: the objects in flight; 0: a root above them, reached from every object that stays
  const index = new Map();
  const kept = [];
  for (let i = 0; i < N; i++) {
    if (idleIds.has(s.nodes[i * W + 2]) || OUTSIDE.has(type(i)) || (type(i) === 'hidden' && name(i).includes('Weak'))) continue;
    kept.push(i);
    index.set(i, kept.length);
  }
  const n = kept.length + 1;
  const succ = Array.from({ length: n }, () => []);
  const pred = Array.from({ length: n }, () => []);
  const heldBy = new Map();
  for (let i = 0; i < N; i++) {
    const a = index.get(i) ?? 0;
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EW) {
      const t = et[s.edges[e]];
      if (t === 'weak' || t === 'shortcut') continue;
      const b = index.get(s.edges[e + 2] / W);
      if (!b) continue;
      if (a === 0) {
        if (heldBy.has(b)) continue;
        heldBy.set(b, `${label(i)} .${edgeName(e)}`);
      }
      succ[a].push([b, edgeName(e)]);
      pred[b].push(a);
    }
  }
  // reverse post-order, then Cooper–Harvey–Kennedy's iteration
  const order = [];
  const seen = new Uint8Array(n);
  const stack = [[0, 0]];
  seen[0] = 1;
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top[1] < succ[top[0]].length) {
      const w = succ[top[0]][top[1]++][0];
      if (!seen[w]) {
        seen[w] = 1;
        stack.push([w, 0]);
      }
    } else {
      order.push(top[0]);
      stack.pop();
    }
  }
  order.reverse();
  const po = new Int32Array(n).fill(-1);
  order.forEach((v, k) => {
    po[v] = k;
  });
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const meet = (a, b) => {
    while (a !== b) {
      while (po[a] > po[b]) a = idom[a];
      while (po[b] > po[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of order) {
      if (v === 0) continue;
      let d = -1;
      for (const p of pred[v]) if (idom[p] >= 0) d = d < 0 ? p : meet(p, d);
      if (d >= 0 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  const children = Array.from({ length: n }, () => []);
  for (let v = 1; v < n; v++) if (idom[v] >= 0) children[idom[v]].push(v);
  const retained = new Float64Array(n);
  for (let k = order.length - 1; k >= 0; k--) {
    const v = order[k];
    if (v) {
      retained[v] += self(kept[v - 1]);
      retained[idom[v]] += retained[v];
    }
  }
  const lines = [`${retained[0]} bytes in flight (objects the idle snapshot no longer has), ${n - 1} objects`];
  const edgeTo = (parents, v) => {
    for (const p of parents) for (const [b, en] of succ[p]) if (b === v) return en;
    return '?';
  };
  const show = (parents, kids, depth, indent) => {
    const groups = new Map();
    for (const k of kids) {
      const key = parents.length === 1 && parents[0] === 0 ? `${heldBy.get(k) ?? ''} -> ${label(kept[k - 1])}` : `.${edgeTo(parents, k)} -> ${label(kept[k - 1])}`;
      const g = groups.get(key) ?? { bytes: 0, nodes: [] };
      g.bytes += retained[k];
      g.nodes.push(k);
      groups.set(key, g);
    }
    for (const [key, g] of [...groups].sort((x, y) => y[1].bytes - x[1].bytes)) {
      if (g.bytes < minBytes) continue;
      lines.push(`${indent}${g.bytes} (${g.nodes.length}) ${key}`);
      if (depth < maxDepth)
        show(
          g.nodes,
          g.nodes.flatMap((k) => children[k]),
          depth + 1,
          `${indent}  `,
        );
    }
  };
  show([0], children[0], 0, '');
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mid, idle, minBytes = '300', depth = '12'] = process.argv.slice(2);
  for (const line of inflightDominators(mid, idle, Number(minBytes), Number(depth))) process.stdout.write(`${line}\n`);
}
