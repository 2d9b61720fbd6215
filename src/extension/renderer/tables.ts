/** Tabular outputs as sorted tables with units; the first rows visible, the rest a click away. */
import type { TableView } from '../../shared/result-protocol';
import { el, formatNumber } from './dom';
import { fill as format, resultStrings, term, type ResultStrings } from '../../shared/result-strings';

export function renderTable(t: TableView, S: ResultStrings = resultStrings('en'), lang?: 'en' | 'zh'): HTMLElement {
  const box = el('div', 'gw-tablebox');
  box.appendChild(el('h4', undefined, term(t.title, lang)));
  const table = el('table', 'gw-table');
  const head = el('tr');
  const swatchCol = !!t.swatches;
  let order = t.rows.map((_, i) => i);
  let sortKey = t.sortedBy?.key;
  let descending = t.sortedBy?.descending ?? false;
  const body = el('tbody');
  let expanded = t.rows.length <= t.visible;
  const fill = () => {
    body.replaceChildren();
    order.forEach((ri, n) => {
      const tr = el('tr');
      if (!expanded && n >= t.visible) tr.classList.add('gw-hidden');
      t.columns.forEach((c, ci) => {
        const v = t.rows[ri][ci];
        const td = el('td', c.numeric ? 'gw-num' : undefined);
        if (ci === 0 && swatchCol && t.swatches![ri]) {
          const sw = el('span', 'gw-swatch');
          sw.style.background = t.swatches![ri]!;
          td.appendChild(sw);
        }
        td.appendChild(document.createTextNode(c.numeric ? formatNumber(v) : v === null ? '—' : String(v)));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  };
  t.columns.forEach((c, ci) => {
    const th = el('th', c.numeric ? 'gw-num' : undefined, c.unit ? `${term(c.label, lang)} (${c.unit})` : term(c.label, lang));
    th.tabIndex = 0;
    th.dataset.key = c.key;
    th.title = S.sortColumn;
    const sort = () => {
      descending = sortKey === c.key ? !descending : c.numeric;
      sortKey = c.key;
      const val = (ri: number) => t.rows[ri][ci];
      order = [...order].sort((a, b) => {
        const x = val(a), y = val(b);
        const cmp = typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''));
        return descending ? -cmp : cmp;
      });
      head.querySelectorAll('th').forEach((h) => h.removeAttribute('aria-sort'));
      th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      fill();
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    if (sortKey === c.key) th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    head.appendChild(th);
  });
  const thead = el('thead');
  thead.appendChild(head);
  table.append(thead, body);
  fill();
  box.appendChild(table);
  if (!expanded) {
    const more = el('button', 'gw-more', format(S.showAllRows, t.rows.length));
    more.addEventListener('click', () => { expanded = true; fill(); more.remove(); });
    box.appendChild(more);
  }
  if (t.omitted) box.appendChild(el('div', 'gw-note', format(S.moreRowsInFile, t.omitted)));
  return box;
}
