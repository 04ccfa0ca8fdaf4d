// Loaded into the server by bench/inflight-heap.js (node --require): each SIGUSR2 writes a V8 heap
// snapshot to $AGENTPORT_SNAPSHOT_DIR/NN.heapsnapshot, then an empty NN.done beside it (the
// snapshot stops the event loop while it is written; the bench waits for the marker).
const v8 = require('node:v8');
const path = require('node:path');
const { writeFileSync } = require('node:fs');

let n = 0;
process.on('SIGUSR2', () => {
  const name = String(n++).padStart(2, '0');
  v8.writeHeapSnapshot(path.join(process.env.AGENTPORT_SNAPSHOT_DIR, `${name}.heapsnapshot`));
  writeFileSync(path.join(process.env.AGENTPORT_SNAPSHOT_DIR, `${name}.done`), '');
});
