/**
 * JPEG 2000 tiles decoded on worker threads. OpenJPEG is single-threaded and a 1024² Sentinel-2
 * tile takes about a quarter of a second, so a band decodes about as many times faster as there are
 * free cores, and the extension host's thread only copies samples. The pool starts on the first
 * decode, holds at most one thread per core (two or more cores; on one, decodes run inline), and its
 * threads end after a few idle seconds. Without the worker script beside this module (a bundle built
 * without it) or inside another worker thread, tiles decode inline.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread, Worker } from 'node:worker_threads';
import { Jp2Error } from './codestream';
import { decodeCodestream, type DecodedTile } from './openjpeg';
import { cores } from '../../pipeline/workers';

const WORKER_JS = path.join(__dirname, 'jp2-worker.js');
const IDLE_MS = 5000;

interface Job { cs: Uint8Array; reduce: number; size?: { width: number; height: number }; resolve: (t: DecodedTile) => void; reject: (e: Error) => void; signal?: AbortSignal }

let threads: { w: Worker; busy?: number }[] = [];
const queue: Job[] = [];
const pending = new Map<number, Job>();
let nextId = 1;
let idleTimer: NodeJS.Timeout | undefined;
const listened = new WeakSet<AbortSignal>();
/** Whether the worker script is there, looked up once (poolSize runs for every tile). */
let scriptThere: boolean | undefined;

/** Threads the pool may start: 0 (inline) in a worker thread, on one core, or without the script. */
export function poolSize(): number {
  const env = process.env.GEOWEAVE_JP2_THREADS;
  if (env !== undefined && env !== '') return Math.max(0, Math.min(8, Math.floor(Number(env)) || 0));
  if (!isMainThread || !(scriptThere ??= fs.existsSync(WORKER_JS))) return 0;
  const n = cores();
  return n >= 2 ? Math.min(8, n) : 0;
}

function dispatch(): void {
  // A cancelled run's tiles still waiting are dropped, not decoded (a whole 10980² band is 121 of them).
  for (let i = queue.length - 1; i >= 0; i--) {
    const s = queue[i].signal;
    if (s?.aborted) { const [job] = queue.splice(i, 1); job.reject(s.reason instanceof Error ? s.reason : new Jp2Error('cancelled')); }
  }
  for (const t of threads) {
    if (t.busy !== undefined || !queue.length) continue;
    const job = queue.shift()!;
    const id = nextId++;
    t.busy = id;
    pending.set(id, job);
    // Held while it works (the caller awaits it), let go when idle (so an idle pool never keeps a process alive).
    t.w.ref();
    t.w.postMessage({ id, cs: job.cs, reduce: job.reduce, size: job.size }, [job.cs.buffer as ArrayBuffer]);
  }
  const want = poolSize();
  if (queue.length && threads.length < want) { spawn(); dispatch(); }
  scheduleIdle();
}

function spawn(): void {
  const w = new Worker(WORKER_JS);
  const slot: { w: Worker; busy?: number } = { w };
  threads.push(slot);

  w.on('message', (m: { id: number; tile?: DecodedTile; error?: string }) => {
    const job = pending.get(m.id);
    pending.delete(m.id);
    slot.busy = undefined;
    w.unref();
    if (job) m.tile ? job.resolve(m.tile) : job.reject(new Jp2Error(m.error ?? 'the decoder thread gave no answer'));
    dispatch();
  });
  const lost = (why: string) => {
    threads = threads.filter((t) => t !== slot);
    if (slot.busy !== undefined) {
      const job = pending.get(slot.busy);
      pending.delete(slot.busy);
      job?.reject(new Jp2Error(why));
    }
    slot.busy = undefined;
    dispatch();
  };
  w.on('error', (e) => lost(`the decoder thread failed (${e.message})`));
  w.on('exit', (code) => { if (threads.includes(slot)) lost(`the decoder thread stopped (exit code ${code})`); });
  w.unref();
}

function scheduleIdle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  if (!threads.length || queue.length || pending.size) return;
  idleTimer = setTimeout(() => {
    const idle = threads;
    threads = [];
    for (const t of idle) void t.w.terminate();
  }, IDLE_MS);
  idleTimer.unref();
}

/**
 * Decodes one tile codestream on a pool thread (inline where the pool has none). `cs` is handed over.
 * Once `signal` aborts, the tile is dropped if it has not started. `reduce`/`size`: as decodeCodestream.
 */
export function decodeTile(cs: Uint8Array, signal?: AbortSignal, reduce = 0, size?: { width: number; height: number }): Promise<DecodedTile> {
  if (poolSize() === 0) return decodeCodestream(cs, reduce, size);
  return new Promise<DecodedTile>((resolve, reject) => {
    queue.push({ cs, reduce, size, resolve, reject, signal });
    // One listener per run's signal, not per tile (a band's 121 tiles would trip Node's listener warning).
    if (signal && !listened.has(signal)) { listened.add(signal); signal.addEventListener('abort', () => dispatch(), { once: true }); }
    dispatch();
  });
}
