// Checks a built trajectory against the captured calls: sampled tokens kept exactly, once, in context.
import { InternalError } from '../errors.js';
import { checkTrainable } from './check-trainable.js';
import type { TrajectoryCall } from './trajectory-call.js';
import type { TrajectoryBuild, TrajectoryRow, TurnPlacement } from './trajectory-row.js';

export type FidelityViolationKind =
  /**
   * Row arrays differ in length (responseIds, lossMask, logprobs, versions), a logprob is null under mask 1
   * / set under mask 0, or a version is not -1 under mask 0 / not an integer >= 0 under mask 1.
   */
  | 'row-shape'
  /** A trainable call's sampled tokens appear in no row. */
  | 'call-missing'
  /** A call's sampled tokens were placed more than once. */
  | 'call-duplicated'
  /** A call that is not trainable was placed in a row. */
  | 'untrainable-placed'
  /** Tokens, logprobs or mask at a placement differ from what the call sampled. */
  | 'sampled-mismatch'
  /** The context before a placement differs from the prompt the model actually saw. */
  | 'context-drift'
  /** A row's mask-1 tokens are not exactly its placed calls' sampled tokens, or callIds disagree. */
  | 'row-calls-mismatch'
  /**
   * A row's versions at a placement differ from the call's sampled-token versions, or the row has none
   * although every call of it recorded one (or has some although a call recorded none).
   */
  | 'version-mismatch';

export interface FidelityViolation {
  kind: FidelityViolationKind;
  callId?: number;
  rowIndex?: number;
  detail: string;
}

/** Returns every way the build breaks token fidelity (empty when it holds). */
export function verifyTrajectory(
  calls: readonly TrajectoryCall[],
  build: TrajectoryBuild,
): FidelityViolation[] {
  const violations: FidelityViolation[] = [];
  const rowsByIndex = new Map(build.rows.map((row) => [row.rowIndex, row]));
  for (const row of build.rows) for (const violation of checkRowShape(row)) violations.push(violation);

  const placedByCall = new Map<number, TurnPlacement>();
  for (const turn of build.turns) {
    if (placedByCall.has(turn.callId)) {
      violations.push({ kind: 'call-duplicated', callId: turn.callId, detail: 'placed more than once' });
    }
    placedByCall.set(turn.callId, turn);
  }

  /** Trainable call id -> whether it recorded versions. */
  const versioned = new Map<number, boolean>();
  for (const call of calls) {
    const check = checkTrainable(call);
    if (check.trainable) versioned.set(call.id, check.value.versions !== null);
    const turn = placedByCall.get(call.id);
    if (!check.trainable) {
      if (turn) violations.push({ kind: 'untrainable-placed', callId: call.id, detail: check.detail });
      continue;
    }
    if (!turn) {
      violations.push({ kind: 'call-missing', callId: call.id, detail: 'trainable call in no row' });
      continue;
    }
    const row = rowsByIndex.get(turn.rowIndex);
    if (!row) {
      violations.push({ kind: 'call-missing', callId: call.id, detail: `row ${turn.rowIndex} does not exist` });
      continue;
    }
    const { promptTokenIds, tokenIds, logprobs, versions } = check.value;
    const sampledAt = firstSampledMismatch(row, turn.responseOffset, tokenIds, logprobs);
    if (sampledAt !== null) {
      violations.push({
        kind: 'sampled-mismatch',
        callId: call.id,
        rowIndex: row.rowIndex,
        detail: `sampled token ${sampledAt} differs (id, logprob or mask)`,
      });
    }
    const versionAt = row.versions === null || versions === null ? null : firstVersionMismatch(row.versions, turn.responseOffset, versions);
    if (versionAt !== null) {
      violations.push({ kind: 'version-mismatch', callId: call.id, rowIndex: row.rowIndex, detail: `version of sampled token ${versionAt} differs` });
    }
    const driftAt = firstContextMismatch(row, turn.responseOffset, promptTokenIds);
    if (driftAt !== null) {
      violations.push({
        kind: 'context-drift',
        callId: call.id,
        rowIndex: row.rowIndex,
        detail: `rebuilt context differs from the captured prompt at index ${driftAt}`,
      });
    }
  }
  for (const violation of checkRowsAgainstTurns(build)) violations.push(violation);
  for (const violation of checkRowVersionsPresence(versioned, build)) violations.push(violation);
  return violations;
}

/** Throws an InternalError when the build is not token-faithful (a bug in a builder). */
export function assertTrajectoryFidelity(calls: readonly TrajectoryCall[], build: TrajectoryBuild): void {
  const violations = verifyTrajectory(calls, build);
  if (violations.length === 0) return;
  const first = violations[0]!;
  throw new InternalError(
    `Trajectory of session ${build.diagnostics.sessionId} (${build.diagnostics.builder}) is not token-faithful: ` +
      `${violations.length} violation(s), first: ${first.kind} call ${first.callId ?? '-'} row ${first.rowIndex ?? '-'}: ${first.detail}`,
  );
}

function checkRowShape(row: TrajectoryRow): FidelityViolation[] {
  const n = row.responseIds.length;
  if (row.lossMask.length !== n || row.logprobs.length !== n || (row.versions !== null && row.versions.length !== n)) {
    return [{ kind: 'row-shape', rowIndex: row.rowIndex, detail: 'responseIds, lossMask, logprobs and versions differ in length' }];
  }
  for (let i = 0; i < n; i++) {
    const sampled = row.lossMask[i] === 1;
    if (sampled !== (row.logprobs[i] !== null)) {
      return [{ kind: 'row-shape', rowIndex: row.rowIndex, detail: `logprob/mask disagree at response index ${i}` }];
    }
    const version = row.versions?.[i];
    if (version !== undefined && (sampled ? !(Number.isInteger(version) && version >= 0) : version !== -1)) {
      return [{ kind: 'row-shape', rowIndex: row.rowIndex, detail: `version ${version} under mask ${row.lossMask[i]} at response index ${i}` }];
    }
  }
  return [];
}

function firstVersionMismatch(rowVersions: readonly number[], offset: number, versions: readonly number[]): number | null {
  for (let i = 0; i < versions.length; i++) if (rowVersions[offset + i] !== versions[i]) return i;
  return null;
}

/** A row has versions exactly when every call placed in it recorded one. */
function checkRowVersionsPresence(versioned: ReadonlyMap<number, boolean>, build: TrajectoryBuild): FidelityViolation[] {
  return build.rows.flatMap((row): FidelityViolation[] => {
    const expected = row.callIds.every((callId) => versioned.get(callId) === true);
    if ((row.versions !== null) === expected) return [];
    return [{ kind: 'version-mismatch', rowIndex: row.rowIndex, detail: expected ? 'row has no versions though every call recorded one' : 'row has versions though a call recorded none' }];
  });
}

function firstSampledMismatch(
  row: TrajectoryRow,
  offset: number,
  tokenIds: readonly number[],
  logprobs: readonly number[],
): number | null {
  for (let i = 0; i < tokenIds.length; i++) {
    const at = offset + i;
    if (row.responseIds[at] !== tokenIds[i] || row.logprobs[at] !== logprobs[i] || row.lossMask[at] !== 1) {
      return i;
    }
  }
  return null;
}

/** Compares `promptIds ++ responseIds[0:offset]` with the captured prompt; returns the first differing index. */
function firstContextMismatch(row: TrajectoryRow, offset: number, prompt: readonly number[]): number | null {
  const contextLength = row.promptIds.length + offset;
  const n = Math.min(contextLength, prompt.length);
  for (let i = 0; i < n; i++) {
    const token = i < row.promptIds.length ? row.promptIds[i] : row.responseIds[i - row.promptIds.length];
    if (token !== prompt[i]) return i;
  }
  return contextLength === prompt.length ? null : n;
}

/**
 * Each row's callIds equal its placements in order, placements do not overlap, and the row's mask-1 count
 * equals their total length (so no mask-1 token is unexplained).
 */
function checkRowsAgainstTurns(build: TrajectoryBuild): FidelityViolation[] {
  const violations: FidelityViolation[] = [];
  for (const row of build.rows) {
    const turns = build.turns.filter((turn) => turn.rowIndex === row.rowIndex);
    const sameCalls =
      turns.length === row.callIds.length && turns.every((turn, i) => turn.callId === row.callIds[i]);
    const ordered = turns.every(
      (turn, i) => i === 0 || turn.responseOffset >= turns[i - 1]!.responseOffset + turns[i - 1]!.length,
    );
    const placed = turns.reduce((sum, turn) => sum + turn.length, 0);
    const trained = row.lossMask.reduce<number>((sum, bit) => sum + bit, 0);
    if (!sameCalls || !ordered || placed !== trained) {
      violations.push({
        kind: 'row-calls-mismatch',
        rowIndex: row.rowIndex,
        detail: `callIds [${row.callIds.join(',')}], ${trained} mask-1 tokens vs ${placed} placed`,
      });
    }
  }
  return violations;
}
