/** `geoweave suggest "<task>" [--lang en|zh]`: forward candidates with reasons (in Chinese for a
 *  Chinese task or `--lang zh`, tools named by their manifests' name_zh). */
import * as fs from 'fs';
import * as path from 'path';
import { ParsedArgs, UsageError, opt, optInt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt, langFrom } from '../common';
import { localizeNote, localizeReason } from '../../core/retrieval/reason-language';
import { displayName, toolDescription, workflowDescription, workflowDisplayName } from '../../core/manifests/display';
import type { ToolManifest, WorkflowTemplate } from '../../core/manifests/types';
import type { SummaryLanguage } from '../../core/results/summary-language';
import type { DataContext, Readiness } from '../../core/retrieval/types';
import type { RetrievalMode } from '../../core/retrieval/context';
import { usableMcpServers } from '../../core/notebook/mcp-config';

/**
 * `--data` is a folder to scan (rasters are described from their headers) or a DataContext JSON file.
 * The MCP servers of the workspace (`--workspace`, else the current folder) go with it, as in the
 * panel: a tool of a server the workspace does not configure is not ready.
 */
export async function readDataContext(file: string | undefined, io?: CliIO, workspace?: string): Promise<DataContext | undefined> {
  const data = await readData(file, io);
  if (data && data.mcpServers === undefined) data.mcpServers = usableMcpServers(path.resolve(workspace ?? process.cwd()));
  return data;
}

async function readData(file: string | undefined, io?: CliIO): Promise<DataContext | undefined> {
  if (!file) return undefined;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    const { scanDataFolder } = await import('../../core/data/scan');
    return scanDataFolder(path.resolve(file), (msg) => io?.err(`warning: ${msg}`));
  }
  let data: DataContext;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--data ${file}: cannot read JSON (${(e as Error).message}); give a data folder or a JSON file {"items": [...]}`);
  }
  if (!data || !Array.isArray(data.items)) throw new UsageError(`--data ${file}: expected {"items": [{"path", "type", "bands"?, "roles"?}]}`);
  return data;
}

export function modeFrom(args: ParsedArgs): RetrievalMode {
  const m = opt(args, 'mode') ?? 'full';
  if (!['bm25', 'dense', 'hybrid', 'full'].includes(m)) throw new UsageError(`--mode must be bm25, dense, hybrid or full, got "${m}"`);
  return m as RetrievalMode;
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const task = args.positionals.join(' ').trim();
  if (!task) throw new UsageError('usage: geoweave suggest "<task>" [--k 10] [--lang en|zh] [--json] [--data context.json]');
  const k = optInt(args, 'k', 10);
  const lang = langFrom(args, task);
  const data = await readDataContext(opt(args, 'data'), io, opt(args, 'workspace'));
  const gw = await openFrom(args, io);
  try {
    const res = await gw.forwardCandidates(task, { k, data, mode: modeFrom(args) });
    const catalog = gw.tools.map((t) => t.manifest);
    const candidates = res.candidates.map((c) => ({ ...c, ...inLanguage(c, lang, catalog, gw.workflows) }));
    if (args.flags.has('json')) {
      io.out(JSON.stringify({ ...res, candidates, lang }, null, 2));
      return 0;
    }
    const zh = lang === 'zh';
    const slots = Object.entries(res.slots).map(([k2, v]) => `${k2}=${Array.isArray(v) ? v.join('|') : v}`).join('  ');
    io.out(`${zh ? '任务：' : 'task: '}${task}${slots ? `\n${zh ? '槽位：' : 'slots: '}${slots}` : ''}\n`);
    io.out(table(candidates.map((c, i) => [String(i + 1), c.id, fmt(c.score), c.readiness.runnable ? (data ? runState(c.readiness, lang) : zh ? '可运行' : 'runnable') : zh ? '仅目录' : 'catalog', c.reason]),
      zh ? ['#', '工具', '得分', '运行', '理由'] : ['#', 'tool', 'score', 'run', 'why']));
    if (res.llm) io.out(zh ? `\nLLM：${res.llm === 'used' ? '已用于扩展查询' : '不可用，仅用内置检索'}` : `\nLLM: ${res.llm === 'used' ? 'used for query expansion' : 'unavailable, builtin retrieval only'}`);
    const template = res.workflow && gw.workflows.find((w) => w.id === res.workflow!.id);
    const named = zh && template?.name_zh ? `${workflowDisplayName(template, 'zh')} (${res.workflow!.id})` : res.workflow?.id;
    if (res.workflow) io.out(`\n${zh ? '工作流' : 'workflow'} ${named} (${fmt(res.workflow.score, 2)}): ${res.workflow.steps.join(' → ')}\n  ${template ? workflowDescription(template, lang) : res.workflow.description}`);
    return 0;
  } finally {
    await gw.dispose();
  }
}

/** "ready", "ready (guess)", "not ready" (projection, extent, grid; the reason says why) or "missing x,y". */
function runState(r: Readiness, lang: SummaryLanguage = 'en'): string {
  if (lang === 'zh') {
    if (r.ready) return r.caveats?.length ? '就绪（推测）' : '就绪';
    return r.issues?.length ? '未就绪' : `缺少 ${r.missing.join(',')}`;
  }
  if (r.ready) return r.caveats?.length ? 'ready (guess)' : 'ready';
  return r.issues?.length ? 'not ready' : `missing ${r.missing.join(',')}`;
}

/** A suggestion's name, description, reason and readiness notes in `lang` (reason-language.ts, the
 *  catalog's name_zh and description_zh); in Chinese the English reason is kept beside it as
 *  `reasonEn` for scripts (the English description is the manifest's). */
export function inLanguage<T extends { id: string; name: string; reason: string; readiness: Readiness }>(s: T, lang: SummaryLanguage, catalog: readonly ToolManifest[], workflows?: readonly WorkflowTemplate[]): Partial<T> & { reasonEn?: string } {
  if (lang === 'en') return {};
  const m = catalog.find((t) => t.id === s.id);
  const note = (x: string) => localizeNote(x, lang, catalog);
  return {
    ...(m ? { name: displayName(m, lang) } : {}),
    ...(m && 'description' in s ? { description: toolDescription(m, lang) } : {}),
    reason: localizeReason(s.reason, lang, catalog, s.id, workflows),
    reasonEn: s.reason,
    readiness: { ...s.readiness, ...(s.readiness.issues ? { issues: s.readiness.issues.map(note) } : {}), ...(s.readiness.caveats ? { caveats: s.readiness.caveats.map(note) } : {}) },
  } as Partial<T> & { reasonEn?: string };
}
