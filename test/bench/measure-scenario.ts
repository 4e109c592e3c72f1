// Measures one load scenario against several targets side by side: a warm-up per target, then
// rounds that interleave the targets (A B C A B C ...) so machine noise hits all of them alike.
import type http from 'node:http';
import { createLoadAgent, runLoad } from './run-load.js';

export interface LoadTarget<Name extends string = string> {
  name: Name;
  /** Full URL of the chat completions endpoint. */
  url: string;
}

export interface Scenario {
  /** e.g. `JSON c=64`. */
  label: string;
  stream: boolean;
  concurrency: number;
  rounds: number;
  requestsPerRound: number;
  warmupRequests: number;
  /** The request body: the 10 KB synthetic agent request (default) or a real one recorded from a harness (Qwen Code 69 KB, Claude Code 78 KB). */
  body?: 'synthetic' | 'recorded';
  /** The client protocol: OpenAI chat (default) or Anthropic Messages. */
  protocol?: 'openai' | 'anthropic';
  /** The upstream's answer time (0: instant). */
  upstreamDelayMs?: number;
}

export interface TargetSamples {
  firstByteMs: number[];
  lastByteMs: number[];
  /** Per round, in order: that round's samples (for round-to-round spread). */
  roundLastByteMs: number[][];
  roundFirstByteMs: number[][];
  /** Measured requests and the wall time they took (sum over rounds). */
  requests: number;
  wallMs: number;
  /** CPU the target's process spent during the measured rounds (user + system), when known. */
  cpuMs: number;
  /** The part of it spent by the process's main thread (its event loop), when known. */
  mainThreadCpuMs: number;
}

export interface ScenarioInput<Name extends string> {
  scenario: Scenario;
  targets: readonly LoadTarget<Name>[];
  body: Buffer;
  headersFor(worker: number): http.OutgoingHttpHeaders;
  /** The CPU time (ms) the target's process has used so far; undefined when it is not a process of ours. */
  cpuMsOf?(target: Name): number | undefined;
  /** The same for the process's main thread alone. */
  mainThreadCpuMsOf?(target: Name): number | undefined;
  /** Called after each batch, e.g. for progress output. */
  onBatch?(target: Name, round: number | 'warm-up', wallMs: number): void;
}

/** Throws when any request failed: a benchmark over error answers measures the wrong thing. */
export async function measureScenario<Name extends string>(input: ScenarioInput<Name>): Promise<Map<Name, TargetSamples>> {
  const { scenario, targets } = input;
  const agents = new Map(targets.map((target) => [target.name, createLoadAgent(scenario.concurrency)] as const));
  const samples = new Map(
    targets.map((target): [Name, TargetSamples] => [
      target.name,
      { firstByteMs: [], lastByteMs: [], roundLastByteMs: [], roundFirstByteMs: [], requests: 0, wallMs: 0, cpuMs: 0, mainThreadCpuMs: 0 },
    ]),
  );
  const batch = async (target: LoadTarget<Name>, requests: number) => {
    const result = await runLoad({
      url: target.url,
      body: input.body,
      headersFor: input.headersFor,
      concurrency: scenario.concurrency,
      requests,
      agent: agents.get(target.name) as http.Agent,
      stream: scenario.stream,
      streamEnd: scenario.protocol === 'anthropic' ? 'message_stop' : '[DONE]',
    });
    if (result.failures > 0) {
      throw new Error(`${scenario.label} against ${target.name}: ${result.failures} of ${requests} requests failed; first: ${result.firstFailure}`);
    }
    return result;
  };
  try {
    for (const target of targets) {
      const warm = await batch(target, scenario.warmupRequests);
      input.onBatch?.(target.name, 'warm-up', warm.wallMs);
    }
    for (let round = 0; round < scenario.rounds; round++) {
      for (const target of targets) {
        const cpuBefore = input.cpuMsOf?.(target.name);
        const mainBefore = input.mainThreadCpuMsOf?.(target.name);
        const result = await batch(target, scenario.requestsPerRound);
        const cpuAfter = input.cpuMsOf?.(target.name);
        const mainAfter = input.mainThreadCpuMsOf?.(target.name);
        const into = samples.get(target.name) as TargetSamples;
        if (cpuBefore !== undefined && cpuAfter !== undefined) into.cpuMs += cpuAfter - cpuBefore;
        if (mainBefore !== undefined && mainAfter !== undefined) into.mainThreadCpuMs += mainAfter - mainBefore;
        into.firstByteMs.push(...result.firstByteMs);
        into.lastByteMs.push(...result.lastByteMs);
        into.roundFirstByteMs.push(result.firstByteMs);
        into.roundLastByteMs.push(result.lastByteMs);
        into.requests += result.lastByteMs.length;
        into.wallMs += result.wallMs;
        input.onBatch?.(target.name, round, result.wallMs);
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return samples;
}
