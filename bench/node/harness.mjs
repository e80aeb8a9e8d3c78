// Seed 004's Node contenders for pgq's bench: pg-boss, BullMQ on Redis and
// BullMQ on PostgreSQL, each at the article's fastest documented settings.
//
//   node bench/node/harness.mjs
//
// One process per contender, started by bench/contenders/node.py. It reads one
// JSON request per line on stdin ({"op": ..., ...}) and writes one JSON reply
// per line on stdout ({"ok": true, ...} or {"ok": false, "error": ...});
// "serve" and "hold" also write events ({"event": "job", ...}) while they run.
// The Python runner times nothing itself: every figure is taken here, around
// the library calls, with performance.now().
import { createInterface } from 'node:readline';
import { makeContender } from './contenders.mjs';

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

let contender = null;

const ops = {
  async setup(req) {
    contender = await makeContender(req.kind, req.target, send);
    await contender.setup();
    return { versions: contender.versions() };
  },
  async load(req) { await contender.load(req.n); return {}; },
  async enqueue_one(req) { return { seconds: await contender.enqueueOne(req.n) }; },
  async enqueue_inflight(req) { return { seconds: await contender.enqueueInflight(req.n, req.inflight) }; },
  async enqueue_bulk(req) { return { seconds: await contender.enqueueBulk(req.n, req.per_call) }; },
  async enqueue_timed(req) { await contender.enqueueTimed(req.n, req.per_second); return {}; },
  async work(req) { return await contender.work(req.workers, req.batch, req.expect, req.cap_s, req.sleep_s); },
  async serve(req) { await contender.serve(req.workers, req.recovery ?? false); return {}; },
  async stop_serving() { await contender.stopServing(); return {}; },
  async hold() { await contender.hold(); return {}; },
  async size() { return { bytes: await contender.sizeBytes() }; },
  async close() { if (contender) await contender.close(); return {}; },
};

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
// One request at a time, in order: the runner waits for each reply.
let chain = Promise.resolve();
rl.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    let req;
    try {
      req = JSON.parse(line);
      const fn = ops[req.op];
      if (!fn) throw new Error(`unknown op ${req.op}`);
      const out = await fn(req);
      send({ ok: true, ...out });
      if (req.op === 'close') process.exit(0);
    } catch (err) {
      send({ ok: false, error: String(err && err.stack ? err.stack : err) });
    }
  });
});
rl.on('close', () => { chain.then(() => process.exit(0)); });
