/** Where in a manifest file a problem is, for the editor's Problems (a JSON pointer to a line). */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

/**
 * The 0-based line a problem's JSON pointer ("/paths/~1uhi~1{city}/get/description", "/tools/3/inputs/0/type")
 * points at in the file's text (JSON or YAML: YAML reads JSON, with positions): the line of the
 * deepest key the path reaches, so a field that is missing is shown on its parent's key. -1 when
 * the text does not parse or the path names nothing in it. A key alone used to be searched for,
 * and in a catalog of many tools every problem landed on the first tool's "description".
 */
export function problemLine(text: string, pointer: string): number {
  return problemLines(text)(pointer);
}

/** `problemLine` for many pointers into one file: the text is parsed once. */
export function problemLines(text: string): (pointer: string) => number {
  const lines = jsonLines(text);
  if (lines) {
    // A JSON Lines catalog: "/3/inputs/0" is in the fourth line that reads as JSON.
    const within = new Map<number, (pointer: string) => number>();
    return (pointer) => {
      const m = /^\/(\d+)(\/.*)?$/.exec(pointer);
      const at = m ? lines[Number(m[1])] : undefined;
      if (at === undefined) return -1;
      const one = within.get(at) ?? within.set(at, problemLines(text.split('\n')[at])).get(at)!;
      return at + Math.max(0, one(m![2] ?? ''));
    };
  }
  let doc: ReturnType<typeof parseDocument> | undefined;
  try {
    doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  } catch {
    doc = undefined;
  }
  const root = doc && !doc.errors.length ? doc.contents : undefined;
  return (pointer) => {
    if (!root) return -1;
    const segs = pointer.split('/').slice(1).filter((s) => s !== '').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node: unknown = root;
    let at: number | undefined;
    for (const seg of segs) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === seg);
        if (!pair) break;
        at = (pair.key as Node | null)?.range?.[0] ?? at;
        node = pair.value;
      } else if (isSeq(node) && /^\d+$/.test(seg) && Number(seg) < node.items.length) {
        node = node.items[Number(seg)];
        at = (node as Node | null)?.range?.[0] ?? at;
      } else break;
    }
    if (at === undefined) return -1;
    let line = 0;
    for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
    return line;
  };
}

/**
 * The line numbers (0-based) of the entries of a JSON Lines text, in order, as the loader reads
 * them (blank lines and lines that do not parse are no entry); undefined for any other text (one
 * JSON or YAML document, or a single line).
 */
function jsonLines(text: string): number[] | undefined {
  const all = text.split('\n');
  const nonBlank = all.filter((l) => l.trim());
  if (nonBlank.length < 2 || !nonBlank.every((l) => l.trimStart().startsWith('{'))) return undefined;
  const out: number[] = [];
  all.forEach((l, i) => {
    if (!l.trim()) return;
    try {
      JSON.parse(l);
      out.push(i);
    } catch {
      // skipped by the loader too
    }
  });
  return out;
}
