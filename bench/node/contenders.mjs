// The three Node contenders behind one interface (see harness.mjs), each at
// seed 004's fastest documented settings:
// - pg-boss: `useListenNotify: true`, queue `notify: true`, `batchSize` = the
//   table's batch with `burstWhenBatchFull` (the article's 29,323 jobs/s row),
//   `localConcurrency` = workers.
// - BullMQ (Redis or PostgreSQL backend, same Queue/Worker API): Worker
//   `concurrency` = workers; finished jobs removed (`removeOnComplete`), like
//   pgq, which keeps none by default.
// A drain's clock starts when the workers are started and stops when the last
// job is finished in the store (BullMQ: its 'completed' event; pg-boss: the
// handlers saw every job and offWork({wait}) returned, so the batch
// completions are in).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const QUEUE = 'bench';

export function payload(i, t) {
  const p = { userId: i, email: `user${i}@example.com`, template: 'welcome-email' };
  if (t !== undefined) p.t = t;
  return p;
}

// Wall-clock seconds with sub-millisecond resolution, comparable across
// processes on one machine (pickup latency: producer and workers differ).
export function wallSeconds() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function version(pkg) {
  return require(`${pkg}/package.json`).version;
}

async function pace(n, perSecond, fn) {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const delay = start + (i * 1000) / perSecond - performance.now();
    if (delay > 0) await sleep(delay);
    await fn(i);
  }
}

async function inflight(n, k, fn) {
  const per = Math.floor(n / k);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: k }, async (_, w) => {
    for (let j = 0; j < per; j++) await fn(w * per + j);
  }));
  return (performance.now() - t0) / 1000;
}

// ---------------------------------------------------------------- pg-boss
// The killed-worker row: instances that beat every second (a dead one is
// noticed within seconds instead of the default 30 s) and supervise every
// second, so an abandoned job is expired (queue expireInSeconds 2) and retried.
const PGBOSS_RECOVERY = { instanceHeartbeatSeconds: 1, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 };

class PgBossContender {
  constructor(target, emit) {
    this.target = target;
    this.emit = emit;
    this.boss = null;
    this.serving = null;
  }

  versions() { return { 'pg-boss': version('pg-boss'), pg: version('pg') }; }

  async boot(extra = {}) {
    const { PgBoss } = await import('pg-boss');
    const boss = new PgBoss({ ...this.target, max: 20, useListenNotify: true, ...extra });
    boss.on('error', (err) => process.stderr.write(`pg-boss: ${err}\n`));
    await boss.start();
    return boss;
  }

  async setup(extra = {}) {
    this.boss = await this.boot(extra);
    // expireInSeconds: 2 only matters to the killed-worker row (a job whose
    // worker died is expired and retried by the next supervise pass).
    if (!(await this.boss.getQueue(QUEUE))) {
      await this.boss.createQueue(QUEUE, { notify: true, expireInSeconds: 2, retryLimit: 5, retryDelay: 0 });
    }
  }

  async load(n) {
    await this.boss.deleteAllJobs(QUEUE);
    for (let start = 0; start < n; start += 1000) {
      const jobs = [];
      for (let i = start; i < Math.min(n, start + 1000); i++) jobs.push({ data: payload(i) });
      await this.boss.insert(QUEUE, jobs);
    }
  }

  async enqueueOne(n) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await this.boss.send(QUEUE, payload(i));
    return (performance.now() - t0) / 1000;
  }

  async enqueueInflight(n, k) {
    return inflight(n, k, (i) => this.boss.send(QUEUE, payload(i)));
  }

  async enqueueBulk(n, perCall) {
    const t0 = performance.now();
    for (let start = 0; start < n; start += perCall) {
      const jobs = [];
      for (let i = start; i < Math.min(n, start + perCall); i++) jobs.push({ data: payload(i) });
      await this.boss.insert(QUEUE, jobs);
    }
    return (performance.now() - t0) / 1000;
  }

  async enqueueTimed(n, perSecond) {
    await pace(n, perSecond, (i) => this.boss.send(QUEUE, payload(i, wallSeconds())));
  }

  // batch 1 is pg-boss's default (polling every 2 s between fetches); with
  // sleep_s > 0 ("N in flight" of real work) the jobs of a batch run at once
  // and localConcurrency = workers / batch, so `workers` jobs are in flight.
  async work(workers, batch, expect, capS, sleepS) {
    let seen = 0;
    const localConcurrency = sleepS > 0 ? Math.max(1, Math.floor(workers / batch)) : workers;
    const opts = { localConcurrency, batchSize: batch };
    if (batch > 1) opts.burstWhenBatchFull = true;
    let resolveAll;
    const all = new Promise((r) => { resolveAll = r; });
    const t0 = performance.now();
    await this.boss.work(QUEUE, opts, async (jobs) => {
      if (sleepS > 0) await Promise.all(jobs.map(() => sleep(sleepS * 1000)));
      seen += jobs.length;
      if (seen >= expect) resolveAll();
    });
    const capped = await Promise.race([all.then(() => false), sleep(capS * 1000).then(() => true)]);
    if (!capped) await this.boss.offWork(QUEUE, { wait: true });
    const seconds = capped ? capS : (performance.now() - t0) / 1000;
    if (capped) await this.boss.offWork(QUEUE, { wait: false });
    return { done: Math.min(seen, expect), seconds, capped };
  }

  async serve(workers, recovery) {
    if (recovery) {
      // A fresh instance whose supervisor runs every second: the dead
      // worker's job expires (expireInSeconds 2) and comes back.
      await this.boss.stop({ graceful: false, wait: true });
      this.boss = await this.boot(PGBOSS_RECOVERY);
    }
    // With notify on, a worker polls only every 30 s; a job that comes back
    // by expiry sends no NOTIFY, so the recovering worker polls every 0.5 s.
    const poll = recovery ? { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 } : {};
    await this.boss.work(QUEUE, { localConcurrency: workers, batchSize: 1, ...poll }, async (jobs) => {
      const at = wallSeconds();
      for (const job of jobs) this.emit({ event: 'job', payload: job.data, at });
    });
    this.serving = true;
  }

  async stopServing() {
    if (this.serving) await this.boss.offWork(QUEUE, { wait: false });
    this.serving = null;
  }

  async hold() {
    await this.boss.stop({ graceful: false, wait: true });
    this.boss = await this.boot(PGBOSS_RECOVERY);
    await this.boss.work(QUEUE, { localConcurrency: 1, batchSize: 1 }, async () => {
      this.emit({ event: 'claimed' });
      await new Promise(() => {});
    });
  }

  async sizeBytes() { return null; }

  async close() {
    if (this.boss) await this.boss.stop({ graceful: false, wait: true, close: true });
  }
}

// ---------------------------------------------------------------- BullMQ
class BullMQContender {
  constructor(backend, target, emit) {
    this.backend = backend; // 'redis' | 'postgres'
    this.target = target;
    this.emit = emit;
    this.queue = null;
    this.serving = null;
  }

  versions() {
    const v = { bullmq: version('bullmq') };
    if (this.backend === 'redis') v.ioredis = version('ioredis');
    else v.pg = version('pg');
    return v;
  }

  async lib() {
    return import('bullmq');
  }

  connection(forWorker) {
    if (this.backend === 'redis') {
      // ioredis over the bench's own Unix socket; workers need maxRetriesPerRequest null.
      return { path: this.target.path, ...(forWorker ? { maxRetriesPerRequest: null } : {}) };
    }
    return { ...this.target, max: 20, migrate: true };
  }

  async make(cls, ...args) {
    const m = await this.lib();
    const C = m[cls];
    return this.backend === 'redis' ? new C(...args) : new C(...args, m.createPostgresBackend);
  }

  async setup() {
    this.queue = await this.make('Queue', QUEUE, {
      connection: this.connection(false),
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
    });
    await this.queue.waitUntilReady();
  }

  async empty() {
    await this.queue.obliterate({ force: true });
  }

  async load(n) {
    await this.empty();
    for (let start = 0; start < n; start += 1000) {
      const jobs = [];
      for (let i = start; i < Math.min(n, start + 1000); i++) jobs.push({ name: 'noop', data: payload(i) });
      await this.queue.addBulk(jobs);
    }
  }

  async enqueueOne(n) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await this.queue.add('noop', payload(i));
    return (performance.now() - t0) / 1000;
  }

  async enqueueInflight(n, k) {
    return inflight(n, k, (i) => this.queue.add('noop', payload(i)));
  }

  async enqueueBulk(n, perCall) {
    const t0 = performance.now();
    for (let start = 0; start < n; start += perCall) {
      const jobs = [];
      for (let i = start; i < Math.min(n, start + perCall); i++) jobs.push({ name: 'noop', data: payload(i) });
      await this.queue.addBulk(jobs);
    }
    return (performance.now() - t0) / 1000;
  }

  async enqueueTimed(n, perSecond) {
    await pace(n, perSecond, (i) => this.queue.add('noop', payload(i, wallSeconds())));
  }

  async worker(processor, opts) {
    const w = await this.make('Worker', QUEUE, processor, {
      connection: this.connection(true),
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
      ...opts,
    });
    w.on('error', (err) => process.stderr.write(`bullmq worker: ${err}\n`));
    return w;
  }

  // BullMQ has no batch setting (batches are a BullMQ Pro feature): `batch` is ignored.
  async work(workers, _batch, expect, capS, sleepS) {
    let done = 0;
    let resolveAll;
    const all = new Promise((r) => { resolveAll = r; });
    const w = await this.worker(async () => {
      if (sleepS > 0) await sleep(sleepS * 1000);
    }, { concurrency: workers, autorun: false });
    w.on('completed', () => {
      done += 1;
      if (done >= expect) resolveAll();
    });
    await w.waitUntilReady();
    const t0 = performance.now();
    w.run().catch((err) => process.stderr.write(`bullmq run: ${err}\n`));
    const capped = await Promise.race([all.then(() => false), sleep(capS * 1000).then(() => true)]);
    const seconds = capped ? capS : (performance.now() - t0) / 1000;
    await w.close(true);
    return { done: Math.min(done, expect), seconds, capped };
  }

  // recovery: a short lock (2 s) and a stalled check every second, so a job
  // whose worker died comes back in seconds instead of the 60 s of the
  // defaults (30 s lockDuration + 30 s stalledInterval, seed 004).
  recoveryOpts() {
    return { lockDuration: 2000, stalledInterval: 1000 };
  }

  async serve(workers, recovery) {
    this.serving = await this.worker(async (job) => {
      this.emit({ event: 'job', payload: job.data, at: wallSeconds() });
    }, { concurrency: workers, ...(recovery ? this.recoveryOpts() : {}) });
    await this.serving.waitUntilReady();
  }

  async stopServing() {
    if (this.serving) await this.serving.close(true);
    this.serving = null;
  }

  async hold() {
    await this.worker(async () => {
      this.emit({ event: 'claimed' });
      await new Promise(() => {});
    }, { concurrency: 1, ...this.recoveryOpts() });
  }

  async sizeBytes() {
    if (this.backend !== 'redis') return null;
    const { Redis } = await import('ioredis');
    const r = new Redis({ path: this.target.path });
    const info = await r.info('memory');
    await r.quit();
    return Number(/used_memory:(\d+)/.exec(info)[1]);
  }

  async close() {
    await this.stopServing();
    if (this.queue) await this.queue.close();
  }
}

export async function makeContender(kind, target, emit) {
  switch (kind) {
    case 'pgboss': return new PgBossContender(target, emit);
    case 'bullmq-redis': return new BullMQContender('redis', target, emit);
    case 'bullmq-postgres': return new BullMQContender('postgres', target, emit);
    default: throw new Error(`unknown contender ${kind}`);
  }
}
