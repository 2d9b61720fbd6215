/**
 * Learned models trained ahead, on a second core. A fusion fit trains one next-step model per fold
 * and per kind of fold (ten for a team's flows), 2 s each for 1000 long flows, and each was trained
 * when its fold's first step was scored: a third of the fit, on one core of two. The folds' tool
 * classifiers (0.3 s each) were trained the same way when their first task was scored. Here they
 * are queued at the start of the fit and trained one after another on a worker thread while the fit
 * scores tasks; when a fold needs a model, it takes the one trained (waiting if it is being trained)
 * or, if the thread has not reached it yet, trains it itself. The models are the same either way
 * (training is deterministic), so the fit is too.
 *
 * Without the worker script beside this module (a bundle built without it), inside a worker thread,
 * on one core, or with GEOWEAVE_FIT_THREADS=0, nothing is trained ahead.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMainThread, Worker } from 'node:worker_threads';
import { NextStepModel, type NextStepState, type StepFlow } from './next-step-model';
import { ToolClassifier, type LabelledFlow, type ToolClassifierState } from './tool-classifier';

/** What the thread trains: a next-step model, or a tool classifier. */
export type ModelKind = 'next' | 'classifier';
type Model = NextStepModel | ToolClassifier;

const WORKER_JS = path.join(__dirname, 'step-model-worker.js');

/** A model the pool was asked for: what it is trained on, and where it stands. */
interface Job {
  kind: ModelKind;
  flows: StepFlow[] | LabelledFlow[];
  /** Set once the thread (or a taker, see `takeJob`) has taken it: the model, or undefined when the thread failed or the pool was closed. */
  started?: Promise<Model | undefined>;
  /** Set once `started` has settled. */
  done?: boolean;
}

/** Trains a model of `kind` here. */
export function trainModel(kind: ModelKind, flows: StepFlow[] | LabelledFlow[]): Model {
  return kind === 'next' ? new NextStepModel(flows as StepFlow[]) : new ToolClassifier(flows as LabelledFlow[]);
}

/** Whether a fit may use a second thread: on the main thread, with two cores or more, unless GEOWEAVE_FIT_THREADS is 0. */
export function fitThreadsAllowed(): boolean {
  const env = process.env.GEOWEAVE_FIT_THREADS;
  if (env !== undefined && env !== '' && !(Number(env) > 0)) return false;
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return isMainThread && cores >= 2;
}

/** Whether models can be trained ahead here (see the module's comment). */
export function canTrainAhead(): boolean {
  return fitThreadsAllowed() && fs.existsSync(WORKER_JS);
}

export class StepModelPool {
  private readonly jobs: Record<ModelKind, Map<unknown, Job>> = { next: new Map(), classifier: new Map() };
  private readonly queue: Job[] = [];
  private worker: Worker | undefined;
  private busy = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { job: Job; settle: (m: Model | undefined) => void }>();
  private closed = false;
  /** Models trained so far on the thread and here (by a taker), for reports and tests. */
  readonly trained = { thread: 0, here: 0 };

  /** Queues a next-step model for `key` (the caller's handle for it), trained on `flows` (as `new NextStepModel(flows)`). */
  ahead(key: unknown, flows: StepFlow[]): void {
    this.queueJob(key, { kind: 'next', flows });
  }

  /** Queues a tool classifier for `key`, trained on `flows` (as `new ToolClassifier(flows)`). */
  aheadClassifier(key: unknown, flows: LabelledFlow[]): void {
    this.queueJob(key, { kind: 'classifier', flows });
  }

  /**
   * The next-step model for `key`: the one the thread trained or is training, or, when the thread has
   * not started it, one trained here and now (and taken off the queue). Undefined when none was queued.
   */
  async take(key: unknown): Promise<NextStepModel | undefined> {
    return (await this.takeJob('next', key)) as NextStepModel | undefined;
  }

  /** The tool classifier for `key`, as `take` gives a next-step model. */
  async takeClassifier(key: unknown): Promise<ToolClassifier | undefined> {
    return (await this.takeJob('classifier', key)) as ToolClassifier | undefined;
  }

  private queueJob(key: unknown, job: Job): void {
    if (this.closed || this.jobs[job.kind].has(key)) return;
    this.jobs[job.kind].set(key, job);
    this.queue.push(job);
    this.pump();
  }

  private async takeJob(kind: ModelKind, key: unknown): Promise<Model | undefined> {
    const job = this.jobs[kind].get(key);
    if (!job) return undefined;
    this.jobs[kind].delete(key);
    // While the thread finishes the one asked for, this thread trains the last one of its kind still
    // queued (needed last) instead of waiting: the new-tool folds ask for their models one after
    // another, 0.1 s of scoring apart, and each waited 1.5-1.9 s for the thread (7 s of 43).
    if (job.started && !job.done) this.trainLastHere(kind);
    // A model the thread could not give (it failed, or the pool was closed) is trained here, by the one who needs it.
    if (job.started) return (await job.started) ?? this.trainHere(kind, job.flows);
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    return this.trainHere(kind, job.flows);
  }

  private trainLastHere(kind: ModelKind): void {
    let i = this.queue.length - 1;
    while (i >= 0 && this.queue[i].kind !== kind) i--;
    if (i < 0) return;
    const [job] = this.queue.splice(i, 1);
    job.started = Promise.resolve(this.trainHere(kind, job.flows));
    job.done = true;
  }

  private trainHere(kind: ModelKind, flows: StepFlow[] | LabelledFlow[]): Model {
    this.trained.here++;
    return trainModel(kind, flows);
  }

  /** Ends the thread; what is queued is dropped (a later `take` trains it here). */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    void this.worker?.terminate();
    this.worker = undefined;
    for (const w of this.waiting.values()) w.settle(undefined);
    this.waiting.clear();
  }

  private pump(): void {
    if (this.busy || !this.queue.length || this.closed) return;
    const job = this.queue.shift()!;
    const id = this.nextId++;
    this.busy = true;
    job.started = new Promise<Model | undefined>((resolve) => this.waiting.set(id, { job, settle: (m) => { job.done = true; resolve(m); } }));
    this.thread().postMessage({ id, kind: job.kind, flows: job.flows });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_JS);
    w.on('message', (m: { id: number; state?: NextStepState | ToolClassifierState; error?: string }) => {
      const asked = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      this.busy = false;
      if (m.state) this.trained.thread++;
      const model = !m.state ? undefined : asked?.job.kind === 'classifier' ? ToolClassifier.restore(m.state as ToolClassifierState) : NextStepModel.restore(m.state as NextStepState);
      asked?.settle(model);
      this.pump();
    });
    // A thread that failed once is not started again: what is left is trained where it is taken.
    const lost = () => {
      this.worker = undefined;
      this.busy = false;
      this.closed = true;
      this.queue.length = 0;
      for (const x of this.waiting.values()) x.settle(undefined);
      this.waiting.clear();
    };
    w.on('error', () => lost());
    w.on('exit', () => { if (this.worker === w) lost(); });
    this.worker = w;
    return w;
  }
}
