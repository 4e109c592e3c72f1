// Exact comparison of call records that stays fast on 50k-token prompts (deep equality is too slow there).
import { expect } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import type { StoredCall } from '../../src/store/stored-call.js';

function sameNumbers(actual: readonly number[] | null, expected: readonly number[] | null, what: string): void {
  if (actual === null || expected === null) {
    expect(actual, what).toBe(expected);
    return;
  }
  expect(actual.length, `${what} length`).toBe(expected.length);
  const mismatch = actual.findIndex((value, i) => !Object.is(value, expected[i]));
  expect(mismatch, `${what}: first differing index`).toBe(-1);
}

function sameBytes(actual: Buffer | null, expected: Buffer | null, what: string): void {
  if (actual === null || expected === null) {
    expect(actual, what).toBe(expected);
    return;
  }
  expect(Buffer.isBuffer(actual), `${what} is a Buffer`).toBe(true);
  expect(actual.equals(expected), `${what} byte-identical`).toBe(true);
}

/** Fails unless `actual` equals `expected` field for field: arrays exactly (Object.is), bytes identical. */
export function expectSameRecord(actual: CallRecord, expected: CallRecord, label = 'call'): void {
  const { clientRequest, upstreamRequest, upstreamResponse, capture, ...rest } = actual;
  const { clientRequest: c, upstreamRequest: u, upstreamResponse: r, capture: k, ...expectedRest } = expected;
  sameBytes(clientRequest, c, `${label} clientRequest`);
  sameBytes(upstreamRequest, u, `${label} upstreamRequest`);
  sameBytes(upstreamResponse, r, `${label} upstreamResponse`);
  sameNumbers(capture.promptTokenIds, k.promptTokenIds, `${label} promptTokenIds`);
  sameNumbers(capture.tokenIds, k.tokenIds, `${label} tokenIds`);
  sameNumbers(capture.logprobs, k.logprobs, `${label} logprobs`);
  const { promptTokenIds: _p, tokenIds: _t, logprobs: _l, ...captureRest } = capture;
  const { promptTokenIds: _pe, tokenIds: _te, logprobs: _le, ...expectedCaptureRest } = k;
  expect(captureRest, `${label} capture`).toStrictEqual(expectedCaptureRest);
  expect(rest, label).toStrictEqual(expectedRest);
}

/** The CallRecord a StoredCall read with raw bytes stands for. */
export function storedToRecord(call: StoredCall | undefined): CallRecord {
  if (call === undefined) throw new Error('no such call');
  const { id: _id, seq: _seq, raw, ...rest } = call;
  if (raw === null) throw new Error(`call ${call.id} was read without raw bytes`);
  return { ...rest, ...raw };
}
