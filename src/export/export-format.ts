// The export formats and a dispatcher for the per-row ones.
import type { ExportRowInput } from './export-row-input.js';
import { shapeOpenRlhfRow, type OpenRlhfExportRecord } from './shape-openrlhf-row.js';
import { shapePolarRow, type PolarExportRecord } from './shape-polar-row.js';
import { shapeVerlRow, type VerlExportRecord } from './shape-verl-row.js';

/** Formats with one record per trajectory row. */
export type RowExportFormat = 'polar' | 'verl' | 'openrlhf';

/** Every format; `sft` has one record per accepted session, `swebench-predictions` one per session. */
export type ExportFormat = RowExportFormat | 'sft' | 'swebench-predictions';

export const ROW_EXPORT_FORMATS: readonly RowExportFormat[] = ['polar', 'verl', 'openrlhf'];
export const EXPORT_FORMATS: readonly ExportFormat[] = [...ROW_EXPORT_FORMATS, 'sft', 'swebench-predictions'];

export type RowExportRecord = PolarExportRecord | VerlExportRecord | OpenRlhfExportRecord;

export function shapeExportRow(format: RowExportFormat, input: ExportRowInput): RowExportRecord {
  switch (format) {
    case 'polar':
      return shapePolarRow(input);
    case 'verl':
      return shapeVerlRow(input);
    case 'openrlhf':
      return shapeOpenRlhfRow(input);
    default: {
      const unknown: never = format;
      return unknown;
    }
  }
}
