// The argv that kills every process of one exec inside a container, found by its marker variable.

/** Environment variable set on every exec; its value identifies the exec's process tree. */
export const EXEC_MARKER_VAR = 'POLAR_EXEC_ID';

// Runs as root via a second exec. It finds processes whose environment carries the marker (the exec's
// process and every descendant that kept its environment, even re-parented setsid daemons), freezes them
// all with SIGSTOP (so no parent reacts to a child's death, e.g. a shell moving on to its next command),
// then kills each one's process group (docker exec makes the first process a session and group leader,
// which also catches children that cleared their environment) and each process. A second pass catches
// children forked during the first. Needs only sh, tr, grep and /proc.
const KILL_SCRIPT = `
marker="$1=$2"
for pass in 1 2; do
  pids=""
  for dir in /proc/[0-9]*; do
    if tr '\\000' '\\n' < "$dir/environ" 2>/dev/null | grep -qxF "$marker"; then pids="$pids \${dir#/proc/}"; fi
  done
  [ -n "$pids" ] || break
  for pid in $pids; do kill -s STOP "$pid" 2>/dev/null; done
  for pid in $pids; do
    kill -s KILL -- "-$pid" 2>/dev/null
    kill -s KILL "$pid" 2>/dev/null
  done
done
exit 0
`;

/** argv for `exec` (run it as user root) that kills the exec tagged with `execId`. */
export function killExecTreeArgv(execId: string): string[] {
  return ['sh', '-c', KILL_SCRIPT, 'polar-kill', EXEC_MARKER_VAR, execId];
}
