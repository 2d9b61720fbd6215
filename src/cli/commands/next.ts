/** `geoweave next --task "<task>" --done a,b [--result "<summary>"] [--lang en|zh]`: complementary
 *  suggestions (in Chinese for a Chinese task or `--lang zh`). */
import { ParsedArgs, UsageError, opt, optInt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt, langFrom } from '../common';
import { RATIONALE_LABELS } from '../../core/retrieval/reason-language';
import { memoryFromFlow } from '../../core/eval/memory-from-flow';
import { inLanguage, modeFrom, readDataContext } from './suggest';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const task = opt(args, 'task');
  const doneArg = opt(args, 'done');
  if (!task || !doneArg) throw new UsageError('usage: geoweave next --task "<task>" --done id1,id2 [--result "<summary>"] [--k 10] [--lang en|zh] [--json]');
  const done = doneArg.split(',').map((s) => s.trim()).filter(Boolean);
  if (!done.length) throw new UsageError('--done needs at least one tool id');
  const k = optInt(args, 'k', 10);
  const lang = langFrom(args, task);
  const gw = await openFrom(args, io);
  try {
    const unknown = done.filter((id) => !gw.getTool(id));
    if (unknown.length) throw new UsageError(`--done: unknown tool id(s) ${unknown.join(', ')}; see "geoweave index stats" or the manifests folder`);
    const memory = memoryFromFlow(gw, task, done, opt(args, 'result') ?? '');
    const res = await gw.complementarySuggestions(memory, { k, data: await readDataContext(opt(args, 'data'), io, opt(args, 'workspace')), mode: modeFrom(args) });
    const catalog = gw.tools.map((t) => t.manifest);
    const local = <T extends Parameters<typeof inLanguage>[0]>(x: T) => ({ ...x, ...inLanguage(x, lang, catalog) });
    const shown = { ...res, ranked: res.ranked.map(local), groups: res.groups.map((g) => ({ ...g, suggestions: g.suggestions.map(local) })), lang };
    if (args.flags.has('json')) {
      io.out(JSON.stringify(shown, null, 2));
      return 0;
    }
    const zh = lang === 'zh';
    io.out(`${zh ? '任务：' : 'task: '}${task}\n${zh ? '已完成：' : 'done: '}${done.join(' → ')}\n`);
    io.out(table(shown.ranked.map((s, i) => [String(i + 1), s.id, fmt(s.score), RATIONALE_LABELS[lang][s.rationale], s.reason]), zh ? ['#', '工具', '得分', '类型', '理由'] : ['#', 'tool', 'score', 'rationale', 'why']));
    if (res.llm) io.out(zh ? `\nLLM：${res.llm === 'used' ? '已用于生成互补查询' : '不可用，仅用内置建议'}` : `\nLLM: ${res.llm === 'used' ? 'used for complementary queries' : 'unavailable, builtin suggestions only'}`);
    return 0;
  } finally {
    await gw.dispose();
  }
}
