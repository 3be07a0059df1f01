/**
 * A row's objectives and further models in words, for a document older than `objective` and
 * `further_models` (upgrade.ts calls these): the twins of row_details.objective_summary and
 * row_details.further_models, tested against the kernel's own documents (test/older.spec.ts).
 */

import { given, natural } from './older-rows';
import { pythonText } from './printable';
import { printable } from './printable';
import words from './presentation.generated.json';
import type {
  ICheckDict,
  IDocumentCandidate,
  IModelDict,
  IObjective
} from './run-schema.generated';

type Row = IDocumentCandidate;
type Found = IModelDict | ICheckDict;

/** row_details._CHECKED: what a further model says of its verification. */
function checkedWord(verified: boolean | null | undefined): string {
  return verified === true
    ? ''
    : verified === false
      ? ' (failed verification)'
      : ' (not verified)';
}

/** row_details.objective_checked: its `checked` word, or (older) a decided `optimal`. */
function objectiveChecked(goal: IObjective): boolean {
  return given(goal.checked) ? goal.checked === true : given(goal.optimal);
}

/** row_details.objective_summary: "maximize x + y = 13 (optimal); soft g = 2". */
export function objectiveSummary(row: Row): string {
  return (row.objectives ?? [])
    .map(goal => {
      const direction = goal.direction || 'objective';
      const term = printable(pythonText(goal.term ?? ''));
      const name = term ? `${direction} ${term}` : direction;
      const word = !objectiveChecked(goal)
        ? ` (${words.claimed})`
        : goal.optimal === true
          ? ' (optimal)'
          : goal.optimal === false
            ? ' (not optimal)'
            : '';
      return `${name} = ${printable(pythonText(goal.value))}${word}`;
    })
    .join('; ');
}

/** row_details.line_place: the cell's line, and the candidate's own when its cell held several. */
function linePlace(row: Row, line: number): string {
  if (!given(row.cell_line)) {
    return `line ${line}`;
  }
  const place = `line ${line + row.cell_line! - 1}`;
  return (row.cell_candidates ?? 1) > 1
    ? `${place} [candidate line ${line}]`
    : place;
}

/** row_details._found_text: a model's payload in hex, else its pairs in natural order. */
function foundText(found: Found): string {
  if (typeof found.payload_hex === 'string') {
    return (found.payload_hex.match(/../g) ?? []).join(' ').toLowerCase();
  }
  return Object.entries(found.model ?? {})
    .sort(([a], [b]) => natural(a, b))
    .map(([name, value]) => `${name}=${pythonText(value)}`)
    .join(', ');
}

/** row_details._not_the_optimum: a further model of an Optimize check need not be optimal. */
function notTheOptimum(row: Row, found: IModelDict): string {
  if (!row.objectives?.length) {
    return '';
  }
  const values = row.objectives
    .filter(goal => String(goal.term) in (found.model ?? {}))
    .map(
      goal =>
        `${goal.direction || 'objective'} ${goal.term} = ${pythonText(found.model[goal.term])}`
    );
  return ` (${printable([...values, 'need not be optimal'].join('; '))})`;
}

/** row_details.check_models: each model read at a check, but the candidate's own. */
function checkModels(row: Row): [number, ICheckDict][] {
  if ((row.checks_made ?? 0) <= 1) {
    return [];
  }
  const own = JSON.stringify(row.model);
  return (row.checks ?? []).flatMap((check, at) =>
    given(check.model) &&
    (!given(row.model) || JSON.stringify(check.model) !== own)
      ? [[at + 1, check] as [number, ICheckDict]]
      : []
  );
}

/** row_details.further_models: "model 2: x=2", then "check 2 (line 5): x=3", each a line. */
export function furtherModels(row: Row): string[] {
  const lines = (row.more_models ?? []).map(
    (found, at) =>
      `model ${at + 2}: ${printable(foundText(found))}${checkedWord(found.verified)}` +
      notTheOptimum(row, found)
  );
  for (const [number, check] of checkModels(row)) {
    const line = given(check.line) ? ` (${linePlace(row, check.line!)})` : '';
    lines.push(
      `check ${number}${line}: ${printable(foundText(check))}${checkedWord(check.verified)}`
    );
  }
  return lines;
}
