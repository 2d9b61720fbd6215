/** The renderer's styles: VS Code theme variables only, so light, dark and high-contrast themes all read. */
export const STYLE_ID = 'geoweave-result-style';

export const CSS = `
.gw-result { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size, 13px); color: var(--vscode-foreground); line-height: 1.4; padding: 2px 0 4px; }
.gw-result .gw-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.gw-result .gw-tool { font-family: var(--vscode-editor-font-family); font-weight: 600; color: var(--vscode-textLink-foreground); }
.gw-result .gw-tool-name { font-weight: 600; }
.gw-result .gw-summary { margin: 2px 0 6px; }
.gw-result .gw-note { color: var(--vscode-descriptionForeground); font-size: 0.92em; margin: 2px 0 4px; }
.gw-result .gw-batch { margin: 2px 0 4px; }
.gw-result .gw-batch select { font: inherit; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, var(--vscode-contrastBorder, transparent)); }
.gw-result .gw-kpis { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0 8px; }
.gw-result .gw-kpi { display: flex; flex-direction: column; min-width: 64px; }
.gw-result .gw-kpi .gw-label { color: var(--vscode-descriptionForeground); font-size: 0.85em; }
.gw-result .gw-kpi .gw-value { font-weight: 600; font-variant-numeric: tabular-nums; }
.gw-result .gw-unit { color: var(--vscode-descriptionForeground); font-weight: normal; margin-left: 3px; font-size: 0.9em; }
.gw-result h4 { margin: 8px 0 3px; font-size: 1em; font-weight: 600; }
.gw-result table.gw-table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 2px 0; }
.gw-result .gw-table th, .gw-result .gw-table td { padding: 2px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, var(--vscode-contrastBorder, rgba(128,128,128,.35))); text-align: left; }
.gw-result .gw-table td.gw-num, .gw-result .gw-table th.gw-num { text-align: right; }
.gw-result .gw-table th { cursor: pointer; user-select: none; font-weight: 600; white-space: nowrap; }
.gw-result .gw-table th:focus-visible, .gw-result button:focus-visible, .gw-result select:focus-visible, .gw-result input:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
.gw-result .gw-table tr.gw-hidden { display: none; }
.gw-result .gw-swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid var(--vscode-contrastBorder, rgba(128,128,128,.6)); vertical-align: -2px; margin-right: 5px; }
.gw-result button { font: inherit; color: var(--vscode-button-secondaryForeground, var(--vscode-foreground)); background: var(--vscode-button-secondaryBackground, transparent); border: 1px solid var(--vscode-button-border, var(--vscode-contrastBorder, transparent)); padding: 1px 8px; border-radius: 2px; cursor: pointer; }
.gw-result button:hover { background: var(--vscode-button-secondaryHoverBackground, var(--vscode-toolbar-hoverBackground)); }
.gw-result select, .gw-result input[type=number] { font: inherit; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, var(--vscode-contrastBorder, transparent)); }
.gw-result svg text { fill: var(--vscode-foreground); font-size: 11px; font-family: var(--vscode-font-family); }
.gw-result svg .gw-axis { stroke: var(--vscode-descriptionForeground); stroke-width: 1; }
.gw-result svg .gw-bar { fill: var(--vscode-charts-blue, #3794ff); }
.gw-result svg .gw-mark line { stroke: var(--vscode-charts-red, #f14c4c); stroke-width: 1.5; stroke-dasharray: 4 2; }
.gw-result svg .gw-line { fill: none; stroke: var(--vscode-charts-blue, #3794ff); stroke-width: 2; }
.gw-result svg .gw-point { fill: var(--vscode-charts-blue, #3794ff); }
.gw-result .gw-charts { display: flex; flex-wrap: wrap; gap: 16px; }
.gw-result .gw-outputs { list-style: none; margin: 4px 0 0; padding: 0; }
.gw-result .gw-outputs li { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
.gw-result .gw-name { font-family: var(--vscode-editor-font-family); color: var(--vscode-textPreformat-foreground); }
.gw-result .gw-arrow, .gw-result .gw-muted { color: var(--vscode-descriptionForeground); }
.gw-result .gw-path { font-family: var(--vscode-editor-font-family); font-size: 0.92em; color: var(--vscode-descriptionForeground); word-break: break-all; }
.gw-result .gw-args { margin: 2px 0 0; font-family: var(--vscode-editor-font-family); font-size: 0.92em; color: var(--vscode-descriptionForeground); word-break: break-word; }
.gw-result .gw-provenance { margin: 2px 0 0; font-size: 0.88em; word-break: break-word; }
.gw-result details { margin-top: 4px; }
.gw-result summary { cursor: pointer; color: var(--vscode-descriptionForeground); user-select: none; }
.gw-result summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
.gw-result pre { margin: 4px 0 0; padding: 4px 6px; max-height: 360px; overflow: auto; font-family: var(--vscode-editor-font-family); font-size: 0.92em; background: var(--vscode-textCodeBlock-background, rgba(128,128,128,.1)); white-space: pre; }
.gw-result progress { width: 240px; vertical-align: middle; accent-color: var(--vscode-progressBar-background); }
.gw-result .gw-preview img { max-width: 256px; image-rendering: pixelated; border: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,.4)); }
/* the map */
.gw-mapholder { min-height: 386px; }
.gw-mapholder.gw-nomap { min-height: 0; }
.gw-mapbox { display: grid; grid-template-columns: minmax(0, 1fr) 220px; gap: 8px; margin: 4px 0 8px; }
.gw-map { position: relative; height: 380px; background: var(--vscode-editor-background); border: 1px solid var(--vscode-editorWidget-border, var(--vscode-contrastBorder, rgba(128,128,128,.4))); }
.gw-map .ol-viewport { position: relative; overflow: hidden; width: 100%; height: 100%; touch-action: none; }
.gw-map .ol-zoom { position: absolute; top: 6px; left: 6px; display: flex; flex-direction: column; gap: 2px; }
.gw-map .ol-zoom button, .gw-map .gw-fit { width: 24px; height: 24px; padding: 0; font-size: 16px; line-height: 20px; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: 1px solid var(--vscode-contrastBorder, transparent); cursor: pointer; }
.gw-map .gw-fit { position: absolute; top: 62px; left: 6px; font-size: 12px; }
.gw-map .ol-scale-line { position: absolute; bottom: 6px; left: 6px; padding: 2px 4px; background: var(--vscode-editorWidget-background); border: 1px solid var(--vscode-editorWidget-border, var(--vscode-contrastBorder, transparent)); }
.gw-map .ol-scale-line-inner { border: 1.5px solid var(--vscode-foreground); border-top: none; color: var(--vscode-foreground); font-size: 10px; text-align: center; }
.gw-map .ol-attribution { position: absolute; bottom: 2px; right: 4px; font-size: 10px; color: var(--vscode-descriptionForeground); }
.gw-map .ol-attribution ul { margin: 0; padding: 0; list-style: none; }
.gw-map .ol-attribution button { display: none; }
.gw-map .gw-swipe-line { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--vscode-focusBorder); pointer-events: none; }
.gw-map .gw-loading { position: absolute; top: 6px; right: 8px; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
.gw-side { display: flex; flex-direction: column; gap: 6px; font-size: 0.92em; min-width: 0; }
.gw-side fieldset { border: 1px solid var(--vscode-editorWidget-border, var(--vscode-contrastBorder, rgba(128,128,128,.4))); margin: 0; padding: 3px 6px 5px; }
.gw-side legend { color: var(--vscode-descriptionForeground); padding: 0 3px; }
.gw-side label { display: flex; gap: 4px; align-items: center; word-break: break-all; }
.gw-side .gw-role { color: var(--vscode-descriptionForeground); font-size: 0.9em; white-space: nowrap; }
.gw-side select { min-width: 0; max-width: 100%; flex: 1; }
.gw-side .gw-swipe label > span:first-child { flex: none; width: 2.6em; }
.gw-colorbar { height: 12px; border: 1px solid var(--vscode-contrastBorder, rgba(128,128,128,.6)); }
.gw-colorbar-labels { display: flex; justify-content: space-between; font-variant-numeric: tabular-nums; }
.gw-stretch { display: grid; grid-template-columns: auto 1fr; gap: 2px 4px; align-items: center; }
.gw-stretch input[type=range] { width: 100%; accent-color: var(--vscode-focusBorder); }
.gw-inspector { font-family: var(--vscode-editor-font-family); font-size: 0.92em; min-height: 4.2em; white-space: pre-wrap; word-break: break-all; }
.gw-classes { list-style: none; margin: 0; padding: 0; }
.gw-classes li { display: flex; align-items: center; gap: 2px; }
@media (max-width: 560px) { .gw-mapbox { grid-template-columns: 1fr; } }
`;

export function ensureStyle(element: HTMLElement): void {
  const root = element.getRootNode();
  const host: ParentNode & Node = root instanceof ShadowRoot ? root : document.head;
  if ((host as ParentNode).querySelector(`#${STYLE_ID}`)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  host.appendChild(style);
}
