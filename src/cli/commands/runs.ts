// `polar runs list | show`: what a rollout did, per session.
import type { Command } from 'commander';
import { resolveDbPath } from '../../config/paths.js';
import { NotFoundError } from '../../errors.js';
import { openStore } from '../../store/open-store.js';
import type { RunSessionRow } from '../../store/run-repository.js';
import { printJson, printLine, printTable } from '../output.js';

export function registerRunsCommand(program: Command): void {
  const runs = program.command('runs').description('Inspect rollout runs');

  runs
    .command('list')
    .description('List runs, newest first')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--json', 'print JSON')
    .action((flags: { db?: string; json?: boolean }) => {
      const store = openStore(resolveDbPath(flags.db), { readonly: true });
      try {
        const rows = store.runs.list().map((run) => {
          const sessions = store.runs.sessions(run.id);
          return { ...run, sessions: sessions.length, done: sessions.filter((session) => session.stage === 'done').length };
        });
        if (flags.json) {
          printJson(rows);
          return;
        }
        printTable(
          ['id', 'name', 'created', 'status', 'harness', 'sessions', 'done', 'upstream'],
          rows.map((run) => [run.id, run.name, new Date(run.createdAt).toISOString(), run.status, run.harness, run.sessions, run.done, run.upstream]),
        );
      } finally {
        store.close();
      }
    });

  runs
    .command('show <run>')
    .description('Show a run: its sessions with instance, status, patch, calls and session key')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--json', 'print JSON (includes patches)')
    .action((name: string, flags: { db?: string; json?: boolean }) => {
      const store = openStore(resolveDbPath(flags.db), { readonly: true });
      try {
        const run = store.runs.get(name);
        if (run === undefined) throw new NotFoundError(`no run "${name}" in ${store.path}`, 'List them with: polar runs list');
        const sessions = store.runs.sessions(run.id);
        if (flags.json) {
          printJson({ run, sessions: sessions.map(sessionToJson) });
          return;
        }
        printLine(`run ${run.name} (id ${run.id}): ${run.status}, harness ${run.harness}, upstream ${run.upstream}, ${sessions.length} session(s)`);
        printLine(`dataset ${run.datasetPath}; data ${store.path}`);
        printTable(
          ['session', 'instance', 'sample', 'stage', 'status', 'calls', 'ok', 'sampled tok', 'patch', 'reward', 'key'],
          sessions.map((session) => [
            session.id,
            session.instanceId,
            session.sampleIndex,
            session.stage,
            session.status,
            session.callCount,
            session.okCallCount,
            session.sampledTokens,
            session.patch === null ? null : `${patchLines(session.patch)} lines`,
            session.reward,
            session.key,
          ]),
        );
      } finally {
        store.close();
      }
    });
}

function patchLines(patch: string): number {
  return patch === '' ? 0 : patch.trimEnd().split('\n').length;
}

function sessionToJson(session: RunSessionRow): Record<string, unknown> {
  return {
    id: session.id,
    key: session.key,
    instance_id: session.instanceId,
    sample_index: session.sampleIndex,
    stage: session.stage,
    status: session.status,
    status_detail: session.statusDetail,
    attempts: session.attempts,
    exit_code: session.exitCode,
    calls: session.callCount,
    ok_calls: session.okCallCount,
    prompt_tokens: session.promptTokens,
    sampled_tokens: session.sampledTokens,
    timings_ms: session.timings,
    reward: session.reward,
    evaluation: session.evaluation,
    patch: session.patch,
  };
}
