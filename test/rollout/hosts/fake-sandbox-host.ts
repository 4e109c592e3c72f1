// A SandboxHost for unit tests of placement and status (not a test file itself): its health, checks, facts and
// images are set by the test; its runtime is the in-memory FakeContainerRuntime.
import type { ContainerRuntime } from '../../../src/runtime/container-runtime.js';
import type { HostCheck, HostFacts, HostHealth, SandboxHost } from '../../../src/runtime/sandbox-host.js';
import { FakeContainerRuntime } from '../../runtime/fake-container-runtime.js';

const GIB = 2 ** 30;

export class FakeHost implements SandboxHost {
  readonly remote = true;
  readonly runtime: ContainerRuntime;
  readonly labels = {};
  readonly address: string;
  health_: HostHealth = { state: 'up', lastError: null, since: 0, losses: 0 };
  readonly images = new Set<string>();
  pulls: string[] = [];
  checks: HostCheck[] = [{ name: 'ssh', ok: true, detail: 'ok' }];
  facts_: HostFacts = { engineId: null, engineVersion: null, architecture: 'x86_64', cores: 8, memoryBytes: 32 * GIB, freeMemoryBytes: 16 * GIB };
  private listeners = new Set<(health: HostHealth) => void>();

  constructor(
    readonly name: string,
    readonly slots: number | 'measured',
  ) {
    this.address = `ssh://root@${name}:22`;
    const host = this;
    const runtime: ContainerRuntime = new FakeContainerRuntime();
    runtime.hasImage = async (ref: string) => host.images.has(ref);
    runtime.ensureImage = async (ref: string) => {
      host.pulls.push(ref);
      host.images.add(ref);
      return { ref, source: 'local' as const };
    };
    this.runtime = runtime;
  }
  health(): HostHealth {
    return { ...this.health_ };
  }
  onHealthChange(listener: (health: HostHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(change: Partial<HostHealth>): void {
    this.health_ = { ...this.health_, ...change };
    for (const listener of this.listeners) listener(this.health());
  }
  async start(): Promise<void> {}
  async check(): Promise<HostCheck[]> {
    return this.checks;
  }
  async stageDirectory(dir: string): Promise<string> {
    return dir;
  }
  async exposeSocket(socket: string): Promise<{ hostDir: string; close(): Promise<void> }> {
    return { hostDir: socket, close: async () => undefined };
  }
  async facts(): Promise<HostFacts> {
    return this.facts_;
  }
  async close(): Promise<void> {}
}

