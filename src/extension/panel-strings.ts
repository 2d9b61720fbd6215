/** The panel's labels from the l10n bundle (l10n/bundle.l10n.*.json), in VS Code's display language. */
import * as vscode from 'vscode';
import type { PanelStrings } from '../shared/protocol';

export function panelStrings(): PanelStrings {
  return {
    task: vscode.l10n.t('Task'),
    taskPlaceholder: vscode.l10n.t('Describe your analysis task'),
    suggest: vscode.l10n.t('Suggest tools'),
    suggestTitle: vscode.l10n.t('Rank tools for the task (Enter in the task box; Shift+Enter for a new line)'),
    candidates: vscode.l10n.t('Candidates'),
    workflowTemplate: vscode.l10n.t('Workflow template'),
    nextSteps: vscode.l10n.t('Next steps'),
    memory: vscode.l10n.t('Memory'),
    clear: vscode.l10n.t('Clear'),
    clearTitle: vscode.l10n.t('Clear the memory timeline of this notebook'),
    // {0} goes through as text: the panel fills it in.
    readyWith: vscode.l10n.t('ready: {0}', '{0}'),
    ready: vscode.l10n.t('ready'),
    notReady: vscode.l10n.t('not ready: {0}', '{0}'),
    missing: vscode.l10n.t('missing'),
    missingWith: vscode.l10n.t('missing: {0}', '{0}'),
    notRunnable: vscode.l10n.t('not runnable'),
    notRunnableWith: vscode.l10n.t('not runnable: {0}', '{0}'),
    whyTitle: vscode.l10n.t('Why this rank: the reason in full and the parts of the score'),
    scoreFrom: vscode.l10n.t('Score {0} from: {1}', '{0}', '{1}'),
    noSignal: vscode.l10n.t('no signal'),
    insertCell: vscode.l10n.t('Insert cell'),
    insertAndRun: vscode.l10n.t('Insert and run'),
    dismiss: vscode.l10n.t('Dismiss'),
    guess: vscode.l10n.t('guess: {0}', '{0}'),
    notebook: vscode.l10n.t('Notebook: {0}', '{0}'),
    noNotebook: vscode.l10n.t('No GeoWeave notebook open: inserting creates one.'),
    noCandidates: vscode.l10n.t('No candidates yet.'),
    describeFirst: vscode.l10n.t('Describe a task to see candidate tools.'),
    insertWorkflow: vscode.l10n.t('Insert workflow'),
    runFirst: vscode.l10n.t('Run a tool cell to see what complements its result.'),
    workingMemory: vscode.l10n.t('working memory'),
    noSteps: vscode.l10n.t('No steps yet.'),
  };
}
