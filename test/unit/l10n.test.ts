import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../fixtures/helpers';

const readJson = (...p: string[]) => JSON.parse(fs.readFileSync(path.join(repoRoot, ...p), 'utf8'));

/** Every "%key%" placeholder in the manifest, wherever it is. */
function nlsKeys(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') { const m = /^%(.+)%$/.exec(v); if (m) out.add(m[1]); }
  else if (Array.isArray(v)) v.forEach((x) => nlsKeys(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => nlsKeys(x, out));
  return out;
}

const placeholders = (s: string) => [...s.matchAll(/\{(\d+)\}|`[^`]+`|command:[\w.]+/g)].map((m) => m[0]).sort();

test('every contributed string of package.json comes from package.nls.json, with a Simplified Chinese translation', () => {
  const pkg = readJson('package.json');
  const en = readJson('package.nls.json');
  const zh = readJson('package.nls.zh-cn.json');
  const keys = nlsKeys(pkg);
  assert.ok(keys.size >= 40, `only ${keys.size} localised strings`);
  for (const k of keys) {
    assert.equal(typeof en[k], 'string', `package.nls.json has no "${k}"`);
    assert.equal(typeof zh[k], 'string', `package.nls.zh-cn.json has no "${k}"`);
    assert.deepEqual(placeholders(zh[k]), placeholders(en[k]), `"${k}": code spans, links and placeholders kept`);
  }
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort(), 'the two nls files have the same keys');
  for (const c of pkg.contributes.commands) assert.match(c.title, /^%command\..+\.title%$/, `${c.command} title is not localised`);
  for (const [k, v] of Object.entries<Record<string, unknown>>(pkg.contributes.configuration.properties)) {
    assert.ok(typeof (v.description ?? v.markdownDescription) === 'string' && /^%.+%$/.test(String(v.description ?? v.markdownDescription)), `${k} description is not localised`);
  }
  // The Chinese titles are Chinese (not English left over), the brand and the API name excepted.
  for (const k of keys) if (k.endsWith('.title') && k !== 'configuration.title') assert.match(zh[k], /[\u4e00-\u9fff]/, `"${k}" is not translated: ${zh[k]}`);
});

test('the packaged extension ships the nls files and the l10n bundles', () => {
  const ignore = fs.readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8');
  for (const line of ['!package.nls.json', '!package.nls.*.json', '!l10n/**']) assert.ok(ignore.includes(line), line);
});

/** The message literals of every `l10n.t(...)` call in a folder of TypeScript sources. */
function l10nLiterals(dir: string): { file: string; message: string }[] {
  const out: { file: string; message: string }[] = [];
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!f.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/l10n\.t\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
      assert.notEqual(m[1], '`', `${f}: l10n.t with a template literal cannot be looked up: ${m[2]}`);
      out.push({ file: f, message: JSON.parse(`"${m[2].replace(/\\'/g, "'").replace(/(?<!\\)"/g, '\\"')}"`) });
    }
    // A call whose first argument is not a literal would escape this check.
    for (const m of text.matchAll(/l10n\.t\(\s*([^'"`\s])/g)) assert.fail(`${f}: l10n.t(${m[1]}… takes a non-literal message`);
  }
  return out;
}

test('every l10n.t message of the extension host has an English and a Simplified Chinese bundle entry', () => {
  const pkg = readJson('package.json');
  assert.equal(pkg.l10n, './l10n');
  const en = readJson('l10n', 'bundle.l10n.json');
  const zh = readJson('l10n', 'bundle.l10n.zh-cn.json');
  const found = l10nLiterals(path.join(repoRoot, 'src', 'extension'));
  assert.ok(found.length >= 40, `only ${found.length} l10n.t calls`);
  for (const { file, message } of found) {
    assert.equal(en[message], message, `${file}: l10n/bundle.l10n.json lacks "${message}" (run npx @vscode/l10n-dev export --outDir ./l10n ./src/extension)`);
    assert.equal(typeof zh[message], 'string', `${file}: l10n/bundle.l10n.zh-cn.json lacks "${message}"`);
    assert.deepEqual(placeholders(zh[message]), placeholders(message), `"${message}": placeholders kept in Chinese`);
    assert.match(zh[message], /[\u4e00-\u9fff]/, `"${message}" is not translated`);
  }
  // No stale entries: each bundle key is still used.
  const used = new Set(found.map((x) => x.message));
  for (const k of Object.keys(zh)) assert.ok(used.has(k), `zh-cn entry no longer used: "${k}"`);
});

test('the panel script falls back to the same English labels the host sends', () => {
  const host = fs.readFileSync(path.join(repoRoot, 'src', 'extension', 'panel-strings.ts'), 'utf8');
  const script = fs.readFileSync(path.join(repoRoot, 'media', 'panel.js'), 'utf8');
  const table = new Map([...host.matchAll(/(\w+): vscode\.l10n\.t\('((?:\\.|[^'])*)'/g)].map((m) => [m[1], m[2]]));
  assert.ok(table.size >= 30, `${table.size} panel strings`);
  const defaults = script.slice(script.indexOf('let S = {'), script.indexOf('};', script.indexOf('let S = {')));
  // Labels of the static HTML come from the host only; everything the script renders has a default.
  for (const [key, en] of table) {
    if (['task', 'taskPlaceholder', 'suggest', 'suggestTitle', 'candidates', 'workflowTemplate', 'nextSteps', 'memory', 'clear', 'clearTitle'].includes(key)) continue;
    assert.ok(defaults.includes(`${key}: '${en}'`), `media/panel.js has no English default ${key}: '${en}'`);
    assert.ok(script.includes(`S.${key}`) || script.includes(`'${key}'`), `media/panel.js never uses ${key}`);
  }
  // No English label is left hard-coded in what the script renders.
  for (const en of ['Insert cell', 'No steps yet.', 'working memory', 'Insert workflow']) assert.equal(script.split(`'${en}'`).length, 2, `"${en}" is used outside the fallback table`);
});
