// `--admission fixed|engine` as a gate for the stage pools: how many agent workers the pools get and the gate
// in front of them. fixed: --concurrency agents (default 4), as before. engine: the pools get --concurrency
// workers (default: what the host holds, by the harness footprint known so far), and the engine-driven
// controller decides how many of them run an agent, never more than the host's cap at that moment; with several
// engine replicas, one controller per replica (each its own KV cache, queue and preemptions).
import { availableParallelism, freemem } from 'node:os';
import { EngineAdmission } from './engine-admission.js';
import { SessionContexts, type SessionContext } from './session-contexts.js';
import { DEFAULT_FOOTPRINT, HarnessFootprints, hostSessionCap, type HostResources } from './host-capacity.js';
import { DEFAULT_ADMISSION, EngineSessionAdmission, FixedAdmission, type AdmissionMode, type SessionAdmission } from './session-admission.js';

/** Today's default --concurrency. */
export const DEFAULT_CONCURRENCY = 4;

export interface AdmissionSettings {
  mode: AdmissionMode;
  /** fixed: agents at once. engine: the most agents at once (default: the host's cap). */
  concurrency?: number;
  /** The served model's context window (the controller's first estimate of a session's final context without prior contexts). */
  contextWindow: number | null;
  /** What earlier sessions on the served model held and reached (engine mode's first estimate; see SessionContexts). */
  priorContexts?: readonly SessionContext[];
  /** The host now (default: os.freemem(), os.availableParallelism()). */
  host?: () => HostResources;
  /** Sessions the machines running containers hold now, replacing the cap from `host` (many hosts: their sum). */
  capacity?: () => number;
  /** The engine replicas (their URLs as the gateway names them): engine mode runs a controller per replica (default: one). */
  replicas?: readonly string[];
}

export interface SessionAdmissionSetup {
  /** Agent workers of the stage pools. */
  agentSlots: number;
  admission: SessionAdmission;
  /** Measured footprints per harness (engine mode records them at each agent's end). */
  footprints: HarnessFootprints;
}

const hostNow = (): HostResources => ({ freeMemoryBytes: freemem(), cores: availableParallelism() });

/**
 * Agent workers the stage pools get: --concurrency, else 4 (fixed) or, in engine mode (the default), what the
 * sandboxes' hosts hold: this machine's, or with `capacity` (SSH hosts: the sessions they hold together, at start)
 * theirs, since the agents' containers do not run here.
 */
export function agentSlotsFor(mode: AdmissionMode | undefined, concurrency: number | undefined, host: () => HostResources = hostNow, capacity?: () => number): number {
  if (concurrency !== undefined) return concurrency;
  if ((mode ?? DEFAULT_ADMISSION) !== 'engine') return DEFAULT_CONCURRENCY;
  return capacity !== undefined ? Math.max(1, capacity()) : hostSessionCap(host(), DEFAULT_FOOTPRINT, 0).sessions;
}

export function createSessionAdmission(settings: AdmissionSettings): SessionAdmissionSetup {
  const footprints = new HarnessFootprints();
  if (settings.mode === 'fixed') {
    const agentSlots = settings.concurrency ?? DEFAULT_CONCURRENCY;
    // As many places as run workers: it never makes one wait. It is kept for what it counts (the agents
    // running: `fixed: 3 of 4 agents` on the dashboard, /v1/status) behind the same interface as engine mode.
    return { agentSlots, admission: new FixedAdmission(agentSlots), footprints };
  }
  const host = settings.host ?? hostNow;
  const agentSlots = agentSlotsFor('engine', settings.concurrency, host);
  let admission: EngineSessionAdmission;
  const capacity = settings.capacity;
  const hostCap = (): number => Math.min(agentSlots, capacity !== undefined ? capacity() : hostSessionCap(host(), footprints.largest(), admission.active).sessions);
  // One estimate of the sessions' contexts for every replica: it is the workload's.
  const contexts = new SessionContexts({ contextWindow: settings.contextWindow, prior: settings.priorContexts ?? [] });
  const replicas = settings.replicas ?? ['engine'];
  admission = new EngineSessionAdmission(
    replicas.map((replica) => ({ replica, controller: new EngineAdmission({ contexts }) })),
    hostCap,
    contexts,
  );
  return { agentSlots, admission, footprints };
}
