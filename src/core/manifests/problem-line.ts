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
