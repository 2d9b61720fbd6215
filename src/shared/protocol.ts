/** The messages between the GeoWeave panel (webview, media/panel.js) and the extension host.
 *  Defined once here; the host validates every incoming message with `parsePanelMessage`. */

/** Where a suggestion shown in the panel came from. */
export type SuggestionOrigin = 'forward' | 'complementary' | 'workflow';

/** A forward candidate or complementary suggestion as the panel shows it. */
export interface SuggestionView {
  id: string;
  name: string;
  /** What the tool does, in the summary language (the manifest's description_zh for Chinese when
   *  it has one): the name's tooltip, so the analyst can read it without opening the manifest. */
  description: string;
  score: number;
  /** One readable line on why it was ranked. */
  reason: string;
  ready: boolean;
  runnable: boolean;
  /** What is missing in the workspace, e.g. "a DEM". */
  missing: string[];
  /** Arguments that would be prefilled, shown as "image=s2_scene.tif". */
  args: string;
  /** Why the prefilled inputs cannot run together (projection, extent, grid) and what fixes it. */
  issues: string[];
  /** What readiness rests on that the data does not say, e.g. bands guessed from the sensor. */
  caveats: string[];
  /** The signals the score is made of, strongest first (shown on demand, not as a bare number). */
  parts: { label: string; value: number; penalty: boolean }[];
}

/** One step of the memory timeline. */
export interface MemoryStepView {
  tool: string;
  argSummary: string;
  resultSummary: string;
  ok: boolean;
  time: string;
  /** True when the step is inside the working-memory window. */
  inWindow: boolean;
}

/** Everything the panel renders; sent whole so a hidden panel comes back as it was. */
export interface PanelState {
  /** File name of the notebook the panel follows, if one is open. */
  notebook?: string;
  task: string;
  forward: SuggestionView[];
  workflow?: { id: string; name: string; description: string; steps: string[] };
  /** Groups of complementary suggestions; `heading` is the rationale in the summary language. */
  complementary: { rationale: string; heading: string; suggestions: SuggestionView[] }[];
  memory: MemoryStepView[];
  windowSize: number;
  /** Index state line, e.g. "45 tools · builtin". */
  index: string;
  busy?: string;
  error?: string;
}

/** Every label the panel shows, in VS Code's display language (the host fills it from its l10n
 *  bundle; `{0}` is replaced by the panel). The static labels are in the HTML the host writes; the
 *  script reads the whole table at startup from the page and again from each `strings` message. */
export interface PanelStrings {
  task: string;
  taskPlaceholder: string;
  suggest: string;
  suggestTitle: string;
  candidates: string;
  workflowTemplate: string;
  nextSteps: string;
  memory: string;
  clear: string;
  clearTitle: string;
  /** "ready: {0}" (the prefilled arguments) and "ready" without any. */
  readyWith: string;
  ready: string;
  notReady: string;
  missing: string;
  missingWith: string;
  notRunnable: string;
  notRunnableWith: string;
  whyTitle: string;
  scoreFrom: string;
  noSignal: string;
  insertCell: string;
  insertAndRun: string;
  dismiss: string;
  guess: string;
  notebook: string;
  noNotebook: string;
  noCandidates: string;
  describeFirst: string;
  insertWorkflow: string;
  runFirst: string;
  workingMemory: string;
  noSteps: string;
}

/** Host → panel. */
export type HostToPanel =
  /** Replace the whole view (progress and errors travel in `state.busy` / `state.error`). */
  | { type: 'state'; state: PanelState }
  /** Put the keyboard focus in the task box (the Describe Task command). */
  | { type: 'focusTask' }
  /** The labels in the current display language. */
  | { type: 'strings'; strings: PanelStrings };

/** Panel → host. */
export type PanelToHost =
  /** The script has loaded and listens; the host answers with `state`. */
  | { type: 'ready' }
  /** The analyst described (or changed) the task; the host computes forward candidates. */
  | { type: 'describeTask'; task: string }
  /** Insert a suggestion as a tool cell, and run it when `run` is true. */
  | { type: 'insert'; toolId: string; origin: SuggestionOrigin; run: boolean }
  /** Insert every step of a workflow template as tool cells. */
  | { type: 'insertWorkflow'; workflowId: string }
  /** The analyst does not want this suggestion. */
  | { type: 'dismiss'; toolId: string; origin: SuggestionOrigin }
  /** Clear the notebook's memory timeline. */
  | { type: 'clearMemory' };

const TOOL_ID = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;
const ORIGINS: readonly SuggestionOrigin[] = ['forward', 'complementary', 'workflow'];
export const MAX_TASK_LENGTH = 2000;

/** Checks a message from the webview; returns it typed, or an error saying what is wrong. */
export function parsePanelMessage(raw: unknown): { ok: true; message: PanelToHost } | { ok: false; error: string } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: 'message is not an object' };
  const m = raw as Record<string, unknown>;
  const fail = (error: string) => ({ ok: false as const, error: `${String(m.type)}: ${error}` });
  switch (m.type) {
    case 'ready':
    case 'clearMemory':
      return { ok: true, message: { type: m.type } };
    case 'describeTask':
      if (typeof m.task !== 'string') return fail('task must be a string');
      if (m.task.length > MAX_TASK_LENGTH) return fail(`task is longer than ${MAX_TASK_LENGTH} characters`);
      return { ok: true, message: { type: 'describeTask', task: m.task } };
    case 'insert':
    case 'dismiss': {
      if (typeof m.toolId !== 'string' || !TOOL_ID.test(m.toolId)) return fail('toolId must be a tool id');
      if (!ORIGINS.includes(m.origin as SuggestionOrigin)) return fail(`origin must be one of ${ORIGINS.join(', ')}`);
      const origin = m.origin as SuggestionOrigin;
      if (m.type === 'dismiss') return { ok: true, message: { type: 'dismiss', toolId: m.toolId, origin } };
      if (typeof m.run !== 'boolean') return fail('run must be true or false');
      return { ok: true, message: { type: 'insert', toolId: m.toolId, origin, run: m.run } };
    }
    case 'insertWorkflow':
      if (typeof m.workflowId !== 'string' || !TOOL_ID.test(m.workflowId)) return fail('workflowId must be a workflow id');
      return { ok: true, message: { type: 'insertWorkflow', workflowId: m.workflowId } };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(m.type)}` };
  }
}
