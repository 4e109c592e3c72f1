// The schema as an ordered list of steps; step i brings `PRAGMA user_version` from i to i + 1.
// Later issues APPEND steps (never edit a shipped one): e.g. migration 2 creates runs and tasks and
// runs `ALTER TABLE sessions ADD COLUMN run_id INTEGER REFERENCES runs(id)`.

export interface Migration {
  /** Shown in errors when the step fails. */
  name: string;
  /** One or more SQL statements, run in one transaction together with the user_version bump. */
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'sessions and calls',
    sql: `
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  label TEXT,
  simulated INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1)),
  meta TEXT
);

-- One row per captured call. Token arrays are packed blobs (pack-number-array.ts). Prompt ids and the
-- two request bodies are deltas against the previous call of the same session (*_base_call_id NULL
-- means stored in full): prompt = base's (prompt ids ++ sampled ids)[0, prompt_shared_len) ++ tail;
-- request = base[0, prefix_len) ++ decompressed blob ++ base's last suffix_len bytes. Raw bytes are
-- compressed (compress-bytes.ts). The base columns carry no REFERENCES clause on purpose: without an
-- index on each, SQLite would scan the table for every deleted call; decoding checks the links.
CREATE TABLE calls (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  protocol TEXT NOT NULL,
  path TEXT NOT NULL,
  stream INTEGER NOT NULL CHECK (stream IN (0, 1)),
  status TEXT NOT NULL,
  error TEXT,
  http_status INTEGER NOT NULL,
  requested_model TEXT,
  upstream_model TEXT,
  started_at INTEGER NOT NULL,
  ttfb_ms REAL,
  latency_ms REAL NOT NULL,
  finish_reason TEXT,
  stop_reason TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  response TEXT,
  prompt_ids_tail BLOB,
  prompt_ids_len INTEGER,
  prompt_base_call_id INTEGER,
  prompt_shared_len INTEGER NOT NULL DEFAULT 0,
  token_ids BLOB,
  token_ids_len INTEGER,
  logprobs BLOB,
  client_request BLOB NOT NULL,
  client_request_base_call_id INTEGER,
  client_request_prefix_len INTEGER NOT NULL DEFAULT 0,
  client_request_suffix_len INTEGER NOT NULL DEFAULT 0,
  upstream_request BLOB,
  upstream_request_base_call_id INTEGER,
  upstream_request_prefix_len INTEGER NOT NULL DEFAULT 0,
  upstream_request_suffix_len INTEGER NOT NULL DEFAULT 0,
  upstream_response BLOB,
  UNIQUE (session_id, seq)
);
`,
  },
  {
    name: 'runs, tasks and rollout sessions',
    sql: `
-- A rollout run: tasks x samples sessions of one harness against one upstream.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  harness TEXT NOT NULL,
  dataset_path TEXT NOT NULL,
  upstream TEXT NOT NULL,
  samples INTEGER NOT NULL DEFAULT 1,
  config TEXT NOT NULL,
  owner_pid INTEGER,
  owner_host TEXT,
  stats TEXT
);

-- The dataset records a run works on (SWE-bench format, kept whole so a resume needs no dataset file).
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  instance_id TEXT NOT NULL,
  record TEXT NOT NULL,
  UNIQUE (run_id, instance_id)
);

-- Rollout columns of a session (NULL for sessions made by hand with \`polar sessions new\`).
ALTER TABLE sessions ADD COLUMN run_id INTEGER REFERENCES runs(id);
ALTER TABLE sessions ADD COLUMN task_id INTEGER REFERENCES tasks(id);
ALTER TABLE sessions ADD COLUMN sample_index INTEGER;
ALTER TABLE sessions ADD COLUMN stage TEXT;
ALTER TABLE sessions ADD COLUMN status TEXT;
ALTER TABLE sessions ADD COLUMN status_detail TEXT;
ALTER TABLE sessions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN patch TEXT;
ALTER TABLE sessions ADD COLUMN exit_code INTEGER;
ALTER TABLE sessions ADD COLUMN timings TEXT;
ALTER TABLE sessions ADD COLUMN agent_log TEXT;
ALTER TABLE sessions ADD COLUMN reward REAL;
ALTER TABLE sessions ADD COLUMN evaluation TEXT;
ALTER TABLE sessions ADD COLUMN updated_at INTEGER;
CREATE INDEX sessions_by_run ON sessions(run_id, task_id, sample_index);
`,
  },
  {
    name: 'attempt boundary of a rollout session',
    sql: `
-- Calls with seq < first_call_seq belong to an earlier attempt of the session (an infrastructure retry,
-- or an attempt cut off by a crash and restarted by --resume). They are kept, never trained on.
ALTER TABLE sessions ADD COLUMN first_call_seq INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    name: 'sampling and response model on calls',
    sql: `
-- The client's own sampling values and the ones polar sent upstream (JSON objects in vLLM's names),
-- and the \`model\` field of the upstream's answer (a mismatch with upstream_model is status model_mismatch).
ALTER TABLE calls ADD COLUMN requested_sampling TEXT;
ALTER TABLE calls ADD COLUMN sent_sampling TEXT;
ALTER TABLE calls ADD COLUMN response_model TEXT;
  `,
  },
  {
    name: 'failure reasons, stage-granular resume and the run manifest',
    sql: `
-- The typed reason of a session's terminal status (SessionReason in store/run-repository.ts), e.g. upstream_5xx.
ALTER TABLE sessions ADD COLUMN status_reason TEXT;
-- What the agent stage decided (status, reason, patch, exit code, log as JSON), stored before the
-- evaluation runs, so a resume grades the stored patch instead of running the agent again.
ALTER TABLE sessions ADD COLUMN agent_outcome TEXT;
-- Why a run ended failed (e.g. the upstream preflight), and what it ran against (rollout/run-manifest.ts).
ALTER TABLE runs ADD COLUMN status_reason TEXT;
ALTER TABLE runs ADD COLUMN manifest TEXT;
`,
  },
  {
    name: 'security events of a session',
    sql: `
-- Something a session's container tried that polar refused (e.g. another session's key on this
-- session's own gateway endpoint). The offending key itself is never stored.
CREATE TABLE security_events (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX security_events_by_session ON security_events(session_id, id);
`,
  },
  {
    name: 'how each call reached the model (token-in or chat)',
    sql: `
-- token_in (the lineage's exact tokens + the new tail, sent as token ids) or chat; NULL when nothing was sent.
ALTER TABLE calls ADD COLUMN mode TEXT;
-- Token-in mode only: why the call went the chat way (gateway/token-in/token-in-fallback.ts) and where.
ALTER TABLE calls ADD COLUMN fallback_reason TEXT;
ALTER TABLE calls ADD COLUMN fallback_detail TEXT;
`,
  },
  {
    name: 'the policy version each call was sampled with',
    sql: `
-- The trainer's policy version in force when the call was sent upstream (polar serve's pause/resume
-- around a weight sync); NULL for calls recorded before versions were stored.
ALTER TABLE calls ADD COLUMN policy_version INTEGER;
`,
  },
  {
    name: 'rollout batches submitted to polar serve and their completed groups',
    sql: `
-- A batch submitted to \`polar serve\` (POST /v1/rollouts); it runs as the run named run_name.
CREATE TABLE batches (
  id TEXT PRIMARY KEY,
  run_name TEXT NOT NULL UNIQUE,
  idempotency_key TEXT UNIQUE,
  -- sha256 of the canonical request JSON: same key + another body is refused.
  request_hash TEXT NOT NULL,
  request TEXT NOT NULL,
  policy_version INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  status_reason TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  callback_url TEXT
);
CREATE INDEX batches_by_status ON batches(status);
-- A group (all samples of one task of a batch) whose sessions all ended, in completion order (seq is the
-- results cursor); callback delivery is recorded per group.
CREATE TABLE batch_groups (
  seq INTEGER PRIMARY KEY,
  batch_id TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  task_id INTEGER NOT NULL,
  instance_id TEXT NOT NULL,
  completed_at INTEGER NOT NULL,
  callback_status TEXT,
  callback_attempts INTEGER NOT NULL DEFAULT 0,
  callback_last_error TEXT,
  UNIQUE (batch_id, task_id)
);
-- State of polar serve that outlives a restart (e.g. the current policy_version), one value per key.
CREATE TABLE serve_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    name: 'covering index of per-session call totals',
    sql: `
-- Per-session call totals (runs show, runs list, export plans, rollout scheduling) read from this index alone:
-- summing prompt_tokens over the call rows walked every row's blob overflow pages (~2 ms per 30-call session).
CREATE INDEX calls_totals ON calls(session_id, seq, status, http_status, prompt_tokens, prompt_ids_len, completion_tokens, token_ids_len);
`,
  },
  {
    name: 'which upstream replica served each call',
    sql: `
-- The base URL of the upstream replica the call was sent to (NULL: nothing was sent, or recorded before replicas).
ALTER TABLE calls ADD COLUMN upstream_replica TEXT;
`,
  },
  {
    name: 'indexes for the viewer\'s run pages (sessions of a run by status, reward, last update)',
    sql: `
-- polar view sorts, filters and counts a run's sessions; with 10,000 sessions these keep each page one index range.
CREATE INDEX sessions_by_run_status ON sessions(run_id, status);
CREATE INDEX sessions_by_run_reward ON sessions(run_id, reward);
CREATE INDEX sessions_by_run_updated ON sessions(run_id, updated_at);
`,
  },
  {
    name: 'which engine family served each call',
    sql: `
-- vllm | sglang (NULL: nothing was sent, or recorded before engines). With mode it names the route the call took:
-- chat completions, vLLM /v1/completions or SGLang /generate.
ALTER TABLE calls ADD COLUMN engine TEXT;
`,
  },
  {
    name: 'per-token policy versions of calls a weight update reached in flight, and the engine control log',
    sql: `
-- JSON [[token_index, version], ...]: from token_index on, the call's sampled tokens carry version (a keep pause
-- resumed with new weights while the call was in flight). NULL: every token carries policy_version.
ALTER TABLE calls ADD COLUMN version_boundaries TEXT;
-- Why the call's per-token versions cannot be known (non-streaming-upstream, weights-changed-while-running);
-- such a call is never trained on. NULL: known.
ALTER TABLE calls ADD COLUMN version_unobserved TEXT;
-- Every control request polar serve sent to an engine replica (pause, resume, sleep, wake, update-weights), in
-- order, so a restarted server knows the engines' state; the current state itself is in serve_state.
CREATE TABLE engine_control_log (
  seq INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  action TEXT NOT NULL,
  replica TEXT NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  detail TEXT,
  mode TEXT,
  level INTEGER,
  weights_kind TEXT,
  version INTEGER
);
`,
  },
  {
    name: 'the tail decision of a serve batch with target_groups',
    sql: `
-- JSON of the decision polar serve took when target_groups groups of the batch were complete (tail cancel or
-- carry): when, which groups were complete, which sessions it cancelled or carried. NULL: not reached (or tail wait).
-- Saved before it is acted on, so a restarted server keeps the decision.
ALTER TABLE batches ADD COLUMN tail_decision TEXT;
`,
  },
  {
    name: 'the Docker host a session attempt runs on',
    sql: `
-- The name (from --hosts) of the SSH host the session's current attempt was placed on; NULL on the local engine.
-- A name only: how the host is reached (address, key) is configuration, never stored.
ALTER TABLE sessions ADD COLUMN host TEXT;
`,
  },
];

/** The user_version a fully migrated database has. */
export const SCHEMA_VERSION = MIGRATIONS.length;
