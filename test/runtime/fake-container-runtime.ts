// An in-memory ContainerRuntime for unit tests of code that manages containers (not a test file itself).

import type { ContainerHandle, ContainerRuntime, ContainerSpec, ContainerSummary, LabelFilter } from '../../src/runtime/container-runtime.js';
import { matchesLabelFilter } from '../../src/runtime/labels.js';

/** Containers are plain records; handles only support remove. */
export class FakeContainerRuntime implements ContainerRuntime {
  readonly endpoint = 'fake://';
  readonly containers = new Map<string, ContainerSummary>();
  readonly removedIds: string[] = [];
  private next = 1;

  /** Adds a container as if something created it earlier. */
  seed(labels: Record<string, string>, name?: string): ContainerSummary {
    const id = `fake${this.next++}`;
    const summary = { id, name: name ?? id, image: 'fake:latest', labels, state: 'running', createdAt: new Date(0) };
    this.containers.set(id, summary);
    return summary;
  }

  async ping(): Promise<void> {}
  async hasImage(): Promise<boolean> {
    return true;
  }
  async ensureImage(ref: string): Promise<{ ref: string; source: 'local' }> {
    return { ref, source: 'local' };
  }
  async createContainer(spec: ContainerSpec): Promise<ContainerHandle> {
    const summary = this.seed({ ...spec.labels }, spec.name);
    const unsupported = (): never => {
      throw new Error('FakeContainerRuntime handles only support remove()');
    };
    const remove = async (): Promise<void> => {
      await this.removeContainer(summary.id);
    };
    return {
      id: summary.id,
      name: summary.name,
      exec: unsupported,
      putFiles: unsupported,
      commit: unsupported,
      getFile: unsupported,
      getArchive: unsupported,
      stop: async () => {},
      remove,
      removeDetached: () => void remove(),
      [Symbol.asyncDispose]: remove,
    };
  }
  async listContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    return [...this.containers.values()].filter((container) => matchesLabelFilter(container.labels, filter));
  }
  async removeContainer(id: string): Promise<boolean> {
    const existed = this.containers.delete(id);
    if (existed) this.removedIds.push(id);
    return existed;
  }
  async removeContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    const matching = await this.listContainers(filter);
    for (const container of matching) await this.removeContainer(container.id);
    return matching;
  }
}
