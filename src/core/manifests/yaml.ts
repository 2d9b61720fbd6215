/**
 * Manifests written in YAML (a team's catalog often is: Galaxy, CWL and plugin repositories keep
 * their tool descriptions so). Read as plain data and then exactly as a JSON manifest is, so every
 * check and warning is the same.
 */
import { parseAllDocuments } from 'yaml';

/**
 * Parses one YAML file: one document is one manifest (or a list of them); several documents
 * (`---` between them) are a list. YAML 1.2 core scalars only, so `no` and `off` stay strings and
 * no tag builds anything but plain data; aliases are bounded, so a small file cannot expand into a
 * huge one; a key given twice is an error rather than a silent choice. Throws with the line.
 */
export function parseYamlManifest(text: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    // The parser recurses per level: a deeply nested file overflows the stack, which is the file's fault.
    const m = (e as Error).message.split('\n')[0].replace(/:\s*$/, '');
    throw new Error(/Maximum call stack/.test(m) ? `${m.replace(/Maximum call stack size exceeded/, 'nested too deeply')}; a manifest needs a few levels` : m);
  }
}

function parse(text: string): unknown {
  const docs = parseAllDocuments(text, { schema: 'core', uniqueKeys: true, merge: false, prettyErrors: true });
  if (!Array.isArray(docs)) throw new Error('no YAML document in the file');
  const values: unknown[] = [];
  for (const d of docs) {
    // Warnings too (an unknown tag such as !!js/function): a manifest is plain data, and a tag that
    // asks for more is a mistake to report rather than a string to index.
    const err = d.errors[0] ?? d.warnings[0];
    if (err) throw err;
    const v = d.toJS({ maxAliasCount: 100 });
    if (v !== null && v !== undefined) values.push(v);
  }
  if (!values.length) throw new Error('no YAML document in the file');
  return values.length === 1 ? values[0] : values;
}
