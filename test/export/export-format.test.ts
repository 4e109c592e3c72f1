// The row-format dispatcher picks the matching shaper.
import { describe, expect, it } from 'vitest';
import { ROW_EXPORT_FORMATS, shapeExportRow } from '../../src/export/export-format.js';
import { shapeOpenRlhfRow } from '../../src/export/shape-openrlhf-row.js';
import { shapePolarRow } from '../../src/export/shape-polar-row.js';
import { shapeVerlRow } from '../../src/export/shape-verl-row.js';
import { exportInput } from './export-fixture.js';

const shapers = { polar: shapePolarRow, verl: shapeVerlRow, openrlhf: shapeOpenRlhfRow };

describe('shapeExportRow', () => {
  it.each(ROW_EXPORT_FORMATS)('%s', (format) => {
    expect(shapeExportRow(format, exportInput)).toEqual(shapers[format](exportInput));
  });
});
