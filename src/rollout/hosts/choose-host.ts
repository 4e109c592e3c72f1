// Where a session goes: among the hosts that are up and have a free slot, one that holds none of the
// session's GRPO group yet (a lost host then costs a group one sample, not all of them), then one that
// already holds the task's image (no pull), then the least loaded (sessions over capacity), then by name.
// A host where this session was just lost comes last.

export interface HostCandidate {
  name: string;
  up: boolean;
  /** Sessions the host holds at once now (its slots, or what its measured memory and cores hold). */
  capacity: number;
  /** Sessions placed there now. */
  active: number;
  /** The task's image is known to be there. */
  hasImage: boolean;
  /** Samples of the session's group placed there now. */
  sameGroup: number;
  /** The session lost an attempt on this host. */
  avoided: boolean;
}

/** The chosen host's name, or undefined when no host that is up has a free slot. */
export function chooseHost(candidates: readonly HostCandidate[]): string | undefined {
  const open = candidates.filter((candidate) => candidate.up && candidate.active < candidate.capacity);
  open.sort(
    (a, b) =>
      Number(a.avoided) - Number(b.avoided) ||
      a.sameGroup - b.sameGroup ||
      Number(b.hasImage) - Number(a.hasImage) ||
      a.active / a.capacity - b.active / b.capacity ||
      a.name.localeCompare(b.name),
  );
  return open[0]?.name;
}
