// GeoWeave panel. Message shapes are defined in src/shared/protocol.ts (HostToPanel / PanelToHost);
// the host validates everything this script sends.
// @ts-check
(function () {
  const vscode = acquireVsCodeApi();
  /** @type {any} */
  let state = vscode.getState() || null;
  // Text typed in the task box but not submitted yet, and the task it was typed over: it survives
  // the panel being hidden (the webview is torn down) as long as the host's task is unchanged.
  /** @type {{ text: string, base: string } | undefined} */
  let draft = state && state.draft;
  // Suggestions already shown before the panel was hidden do not scroll it again.
  let lastComplementary = state ? state.complementary.map((g) => g.suggestions.map((x) => x.id).join(',')).join('|') : '';
  const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  // Labels in VS Code's display language (PanelStrings in src/shared/protocol.ts), written into the
  // page by the host; English when the table is missing.
  /** @type {Record<string, string>} */
  let S = {
    readyWith: 'ready: {0}', ready: 'ready', notReady: 'not ready: {0}', missing: 'missing', missingWith: 'missing: {0}',
    notRunnable: 'not runnable', notRunnableWith: 'not runnable: {0}', whyTitle: 'Why this rank: the reason in full and the parts of the score',
    scoreFrom: 'Score {0} from: {1}', noSignal: 'no signal', insertCell: 'Insert cell', insertAndRun: 'Insert and run', dismiss: 'Dismiss',
    guess: 'guess: {0}', notebook: 'Notebook: {0}', noNotebook: 'No GeoWeave notebook open: inserting creates one.',
    noCandidates: 'No candidates yet.', describeFirst: 'Describe a task to see candidate tools.', insertWorkflow: 'Insert workflow',
    runFirst: 'Run a tool cell to see what complements its result.', workingMemory: 'working memory', noSteps: 'No steps yet.',
  };
  try {
    S = { ...S, ...JSON.parse(($('gw-strings') || {}).textContent || '{}') };
  } catch { /* keep English */ }
  /** "ready: {0}" with its arguments. */
  const fmt = (key, ...args) => String(S[key]).replace(/\{(\d+)\}/g, (m, i) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));
  const task = /** @type {HTMLTextAreaElement} */ ($('task'));

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'onclick') e.addEventListener('click', v);
      else if (k === 'text') e.textContent = String(v);
      else e.setAttribute(k, String(v));
    }
    for (const c of children) if (c) e.append(c);
    return e;
  }

  /** A codicon (decorative: the text next to it carries the meaning). */
  function icon(name) {
    return el('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
  }

  function send(message) {
    vscode.postMessage(message);
  }

  /** The readiness line: what would be prefilled, or what stops the tool, in plain text (the icon
   *  only repeats it). */
  function readinessLine(s) {
    if (s.ready) return el('div', { class: 'ready', title: s.args }, icon('check'), s.args ? fmt('readyWith', s.args) : S.ready);
    const text = s.issues.length ? fmt('notReady', s.issues.join('; '))
      : s.missing.length ? fmt(s.runnable ? 'missingWith' : 'notRunnableWith', s.missing.join(', ')) : S[s.runnable ? 'missing' : 'notRunnable'];
    return el('div', { class: 'missing', title: text }, icon('warning'), text);
  }

  /** The reason, two lines, opening on demand to the whole reason and what the score is made of
   *  (the signals by name, not a bare number). */
  function reasonDetails(s) {
    return el('details', { class: 'why' },
      el('summary', { class: 'reason', title: S.whyTitle }, s.reason),
      el('div', { class: 'parts' }, ...scoreLine(s)),
      s.caveats.length ? el('div', { class: 'parts', text: s.caveats.join('; ') }) : null);
  }

  /** "Score 0.512 from: …" in the display language, the score in its own span. */
  function scoreLine(s) {
    const parts = s.parts.map((p) => `${p.penalty ? '−' : ''}${p.label} ${p.value.toFixed(2)}`).join(' · ') || S.noSignal;
    const [before, after] = fmt('scoreFrom', '\u0000', parts).split('\u0000');
    return [el('span', { text: before }), el('span', { class: 'score', text: s.score.toFixed(3) }), el('span', { text: after })];
  }

  function suggestionItem(s, origin) {
    const label = `${s.name} (${s.id})`;
    const action = (cls, iconName, text, message) =>
      el('button', { type: 'button', class: `${cls} icon`, title: text, 'aria-label': `${text}: ${label}`, onclick: () => send(message) }, icon(iconName));
    return el('li', { class: `suggestion${s.ready ? ' is-ready' : ''}`, 'data-tool': s.id, 'data-origin': origin },
      el('div', { class: 'head' },
        el('span', { class: 'name', text: s.name, title: s.description ? `${s.name}\n${s.description}` : s.name }),
        el('code', { class: 'id', text: s.id, title: s.id }),
        el('span', { class: 'actions' },
          action('insert', 'add', S.insertCell, { type: 'insert', toolId: s.id, origin, run: false }),
          action('insert-run', 'play', S.insertAndRun, { type: 'insert', toolId: s.id, origin, run: true }),
          action('dismiss secondary', 'close', S.dismiss, { type: 'dismiss', toolId: s.id, origin }))),
      reasonDetails(s),
      readinessLine(s),
      s.caveats.length ? el('div', { class: 'caveat', title: s.caveats.join('\n') }, icon('info'), fmt('guess', s.caveats.join('; '))) : null);
  }

  function save() {
    vscode.setState(state ? { ...state, draft } : null);
  }

  /** Which control has the focus, so that re-rendering the lists does not drop it to the body. */
  function focusedControl() {
    const a = document.activeElement;
    // Only while the panel has the keyboard: never pull the focus back from the notebook.
    if (!(a instanceof HTMLButtonElement) || !document.hasFocus()) return undefined;
    const li = a.closest('li.suggestion');
    const cls = ['insert', 'insert-run', 'dismiss', 'insert-workflow'].find((c) => a.classList.contains(c));
    if (!cls) return undefined;
    const list = li ? li.getAttribute('data-origin') : 'workflow';
    const items = li ? [...document.querySelectorAll(`li.suggestion[data-origin="${list}"]`)] : [];
    return { cls, tool: li && li.getAttribute('data-tool'), origin: list, at: li ? items.indexOf(li) : 0 };
  }

  function restoreFocus(f) {
    if (!f || (document.activeElement && document.activeElement !== document.body)) return;
    if (f.cls === 'insert-workflow') {
      const b = document.querySelector('button.insert-workflow');
      if (b instanceof HTMLElement) b.focus();
      return;
    }
    const same = document.querySelector(`li.suggestion[data-origin="${f.origin}"][data-tool="${f.tool}"] button.${f.cls}`);
    // A dismissed suggestion is gone: its neighbour (now at the same place) takes the focus.
    const items = [...document.querySelectorAll(`li.suggestion[data-origin="${f.origin}"]`)];
    const near = items.length ? items[Math.min(f.at, items.length - 1)].querySelector(`button.${f.cls}`) : null;
    const target = same || near || $('suggest');
    if (target instanceof HTMLElement) target.focus();
  }

  function render() {
    if (!state) return;
    const focused = focusedControl();
    if (document.activeElement !== task) {
      if (draft && draft.base === (state.task || '')) task.value = draft.text;
      else {
        draft = undefined;
        task.value = state.task || '';
      }
    }
    $('index').textContent = state.index || '';
    const status = $('status');
    status.replaceChildren(...(state.error ? [icon('error')] : []), state.busy || state.error || (state.notebook ? fmt('notebook', state.notebook) : S.noNotebook));
    status.className = state.error ? 'error' : 'muted';

    const fwd = $('forward');
    fwd.replaceChildren(state.forward.length
      ? el('ol', { class: 'list', id: 'forward-list' }, ...state.forward.map((s) => suggestionItem(s, 'forward')))
      : el('p', { class: 'muted', text: state.task ? S.noCandidates : S.describeFirst }));

    const wfs = $('workflow-section');
    wfs.hidden = !state.workflow;
    if (state.workflow) {
      const w = state.workflow;
      $('workflow').replaceChildren(
        el('div', { class: 'title' }, el('span', { class: 'name', text: w.name })),
        el('div', { class: 'reason', text: w.description }),
        el('div', { class: 'steps', text: w.steps.join(' → ') }),
        el('button', { type: 'button', class: 'insert-workflow', onclick: () => send({ type: 'insertWorkflow', workflowId: w.id }) }, icon('add'), S.insertWorkflow));
    }

    const comp = $('complementary');
    // New suggestions after a run: bring them into view (they sit below the candidates).
    const signature = state.complementary.map((g) => g.suggestions.map((x) => x.id).join(',')).join('|');
    if (signature && signature !== lastComplementary && document.activeElement !== task) {
      requestAnimationFrame(() => $('comp-h').scrollIntoView({ block: 'start' }));
    }
    lastComplementary = signature;
    comp.replaceChildren(...(state.complementary.length
      ? state.complementary.map((g) => el('div', { class: 'group', 'data-rationale': g.rationale },
          el('h3', { text: g.heading || g.rationale }),
          el('ol', { class: 'list' }, ...g.suggestions.map((s) => suggestionItem(s, 'complementary')))))
      : [el('p', { class: 'muted', text: S.runFirst })]));

    const mem = $('memory');
    mem.replaceChildren(...state.memory.map((m, i) => el('li', { class: `step${m.inWindow ? ' in-window' : ''}${m.ok ? '' : ' failed'}`, title: m.time },
      el('div', { class: 'title' }, el('code', { text: `${i + 1}. ${m.tool}` }), m.inWindow ? el('span', { class: 'badge', text: S.workingMemory }) : null),
      el('div', { class: 'args', text: m.argSummary }),
      el('div', { class: 'reason', text: m.resultSummary }))));
    if (!state.memory.length) mem.replaceChildren(el('li', { class: 'muted empty', text: S.noSteps }));
    /** @type {HTMLButtonElement} */ ($('clear')).disabled = !state.memory.length;
    restoreFocus(focused);
  }

  function submitTask() {
    draft = undefined;
    save();
    send({ type: 'describeTask', task: task.value });
  }

  $('suggest').addEventListener('click', submitTask);
  // Enter submits (a task is one request); Shift+Enter starts a new line.
  task.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submitTask();
    }
  });
  task.addEventListener('input', () => {
    draft = { text: task.value, base: state ? state.task || '' : '' };
    save();
  });
  $('clear').addEventListener('click', () => send({ type: 'clearMemory' }));

  window.addEventListener('message', (event) => {
    const m = event.data;
    if (!m || typeof m !== 'object') return;
    if (m.type === 'state' && m.state) {
      state = m.state;
      render();
      save();
    } else if (m.type === 'strings' && m.strings && typeof m.strings === 'object') {
      S = { ...S, ...m.strings };
      render();
    } else if (m.type === 'focusTask') {
      task.focus();
      task.select();
    }
  });

  render();
  send({ type: 'ready' });
})();
