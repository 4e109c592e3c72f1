// What `polar runs list` does (loaded only when it runs; flags are in runs.ts).
import { resolveDbPath } from '../../config/paths.js';
import { openStore } from '../../store/open-store.js';
import { printJson, printTable } from '../output.js';

export function listRunsAction(flags: { db?: string; json?: boolean }): void {
  const store = openStore(resolveDbPath(flags.db), { readonly: true });
  try {
    const rows = store.runs.list().map((run) => {
      const counts = store.runs.counts(run.id);
      return { ...run, sessions: counts.total, done: counts.done };
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
}
