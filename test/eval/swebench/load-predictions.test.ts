import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src/errors.js';
import { makeGoldPredictions, parsePredictionsText } from '../../../src/eval/swebench/load-predictions.js';

const prediction = (id: string, patch: string | null = 'diff') => ({ instance_id: id, model_name_or_path: 'm/x', model_patch: patch });

describe('parsePredictionsText', () => {
  it.each([
    ['JSONL', [prediction('a__a-1'), prediction('a__a-2', null)].map((p) => JSON.stringify(p)).join('\n') + '\n'],
    ['a JSON list', JSON.stringify([prediction('a__a-1'), prediction('a__a-2', null)])],
    ['a dict keyed by instance_id (SWE-agent preds.json)', JSON.stringify({ 'a__a-1': prediction('a__a-1'), 'a__a-2': prediction('a__a-2', null) })],
    [
      'a dict whose values lack instance_id (sb-cli)',
      JSON.stringify({ 'a__a-1': { model_name_or_path: 'm/x', model_patch: 'diff' }, 'a__a-2': { model_name_or_path: 'm/x', model_patch: null } }),
    ],
  ])('reads %s', (_name, text) => {
    expect(parsePredictionsText(text, 'p')).toEqual([
      { instance_id: 'a__a-1', model_name_or_path: 'm/x', model_patch: 'diff', extra: {} },
      { instance_id: 'a__a-2', model_name_or_path: 'm/x', model_patch: null, extra: {} },
    ]);
  });

  it('reads a one-line JSONL file (a single prediction object) and keeps extra fields', () => {
    expect(parsePredictionsText(JSON.stringify({ ...prediction('a__a-1'), cost: 0.5 }), 'p')).toEqual([
      { instance_id: 'a__a-1', model_name_or_path: 'm/x', model_patch: 'diff', extra: { cost: 0.5 } },
    ]);
  });

  it.each([
    ['a missing instance_id', JSON.stringify([{ model_name_or_path: 'm', model_patch: '' }]), /^p record 1: field "instance_id" is missing\.$/],
    ['a missing model_patch', JSON.stringify({ instance_id: 'a', model_name_or_path: 'm' }) + '\n' + JSON.stringify(prediction('b')), /^p:1 \(a\): field "model_patch" is missing/],
    ['a numeric model_patch', JSON.stringify([{ ...prediction('a'), model_patch: 3 }]), /field "model_patch" must be a string or null, got a number/],
    ['a missing model name', JSON.stringify([{ instance_id: 'a', model_patch: '' }]), /field "model_name_or_path" is missing/],
    ['a dict key that disagrees', JSON.stringify({ b: prediction('a') }), /field "instance_id" is "a" but the dict key is "b"/],
    ['a duplicate', [prediction('a'), prediction('a')].map((p) => JSON.stringify(p)).join('\n'), /^p:2: duplicate prediction for "a" \(first at p:1\)/],
    ['a bad JSONL line', JSON.stringify(prediction('a')) + '\n{oops', /^p:2: line is not valid JSON/],
    ['a top-level string', '"gold"', /predictions must be a list, a dict keyed by instance_id, or JSONL/],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parsePredictionsText(text, 'p')).toThrow(DataError);
    expect(() => parsePredictionsText(text, 'p')).toThrow(message);
  });
});

describe('makeGoldPredictions', () => {
  it('uses each record patch under the model name gold', () => {
    expect(makeGoldPredictions([{ instance_id: 'a', patch: 'P' }])).toEqual([{ instance_id: 'a', model_name_or_path: 'gold', model_patch: 'P', extra: {} }]);
  });
});
