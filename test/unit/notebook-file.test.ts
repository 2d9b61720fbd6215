import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNotebook, serializeNotebook, stableStringify, UNREADABLE_KEY } from '../../src/core/notebook/notebook-file';
import type { NotebookRecord } from '../../src/core/notebook/types';

const NB: NotebookRecord = {
  metadata: { memory: { windowSize: 5, task: 'vegetation health', trace: [{ tool: 'ndvi', ok: true, outputs: [], argSummary: 'image=s2.tif', resultSummary: 'mean NDVI 0.41', time: '2026-01-01T00:00:00Z' }] } },
  cells: [
    { kind: 'markdown', source: '# Title\n\ntext' },
    { kind: 'tool', source: 'ndvi\nimage: s2_scene.tif', metadata: { lastRun: { ok: true, tool: 'ndvi', summary: 's', outputs: { index: { path: '/w/o.tif', type: 'raster' } }, time: 't' } } },
  ],
};

test('serialization is deterministic: sorted keys, two-space indent, trailing newline', () => {
  const text = serializeNotebook(NB);
  assert.ok(text.endsWith('}\n'));
  assert.equal(text, stableStringify(JSON.parse(text)), 'keys are sorted at every level');
  const shuffled: NotebookRecord = JSON.parse(JSON.stringify(NB));
  shuffled.metadata = { memory: { trace: (NB.metadata.memory as { trace: unknown[] }).trace, task: 'vegetation health', windowSize: 5 } };
  assert.equal(serializeNotebook(shuffled), text, 'key order in memory does not change the file');
  const lines = text.split('\n');
  assert.equal(lines[0], '{');
  assert.match(lines[1], /^ {2}"cells": \[$/);
  assert.ok(text.includes('"source": [\n        "ndvi",\n        "image: s2_scene.tif"\n      ]'), 'sources are lists of lines');
  assert.equal(serializeNotebook(parseNotebook(text)), text, 'read then write is byte-identical');
});

test('round trip keeps cells, kinds, sources and metadata', () => {
  assert.deepEqual(parseNotebook(serializeNotebook(NB)), NB);
});

test('an empty file is a new empty notebook', () => {
  assert.deepEqual(parseNotebook(''), { cells: [], metadata: {} });
});

function explanation(text: string): string {
  const nb = parseNotebook(text, 'x.geonb');
  assert.equal(nb.cells.length, 1);
  assert.equal(nb.cells[0].kind, 'markdown');
  assert.ok(nb.metadata[UNREADABLE_KEY]);
  return nb.cells[0].source;
}

test('a corrupt or foreign file opens as one cell that says what is wrong', () => {
  assert.match(explanation('{"format": "geoweave-notebook", "cells": ['), /could not read x.geonb: it is not valid JSON/);
  assert.match(explanation('{"nbformat": 4, "cells": []}'), /Jupyter notebook/);
  assert.match(explanation('[1,2]'), /not a JSON object/);
  assert.match(explanation('{"format": "other"}'), /"format" is "other", expected "geoweave-notebook"/);
  assert.match(explanation('{"format": "geoweave-notebook", "version": 9, "cells": []}'), /"version" is 9.*update the extension/);
  assert.match(explanation('{"format": "geoweave-notebook", "version": 1, "cells": [{"kind": "code", "source": []}]}'), /cells\[0\]\.kind is "code"/);
  assert.match(explanation('{"format": "geoweave-notebook", "version": 1, "cells": [{"kind": "tool", "source": 3}]}'), /cells\[0\]\.source must be a list of lines/);
});

test('saving a notebook built from an unreadable file is refused', () => {
  const nb = parseNotebook('not json at all', 'x.geonb');
  assert.throws(() => serializeNotebook(nb), /will not save over a file it could not read/);
});
