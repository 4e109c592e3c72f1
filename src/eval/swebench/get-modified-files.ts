// get_modified_files (swebench v4.1.0): files a diff changes that exist before it, via unidiff's PatchSet rules.

const gitHeader = /^diff --git (a\/[^\t\n]+) (b\/[^\t\n]+)/;
const sourceHeader = /^--- ([^\t\n]+)/;
const targetHeader = /^\+\+\+ ([^\t\n]+)/;
const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

interface PatchedFile {
  source: string;
  target: string;
}

/**
 * The `a/`-stripped source path of every file in `patch` whose source is not `/dev/null`, in patch
 * order: modified, deleted and renamed-from files; created files are left out because they do not
 * exist at the base commit. Mirrors unidiff.PatchSet: a `diff --git` header opens a file,
 * `new file mode` sets its source to /dev/null, and hunk bodies are skipped by their line counts,
 * so a removed line that starts with `-- ` is never taken for a `---` header.
 */
export function getModifiedFiles(patch: string): string[] {
  const files = parsePatchedFiles(patch);
  return files
    .map((file) => file.source)
    .filter((source) => source !== '/dev/null' && source.startsWith('a/'))
    .map((source) => source.slice(2));
}

function parsePatchedFiles(patch: string): PatchedFile[] {
  const lines = patch.split('\n');
  const files: PatchedFile[] = [];
  let current: PatchedFile | undefined;
  let pendingSource: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const git = gitHeader.exec(line);
    if (git) {
      current = { source: git[1]!, target: git[2]! };
      files.push(current);
      continue;
    }
    if (line.startsWith('new file mode') && current) {
      current.source = '/dev/null';
      continue;
    }
    if (line.startsWith('deleted file mode') && current) {
      current.target = '/dev/null';
      continue;
    }
    const source = sourceHeader.exec(line);
    if (source) {
      pendingSource = source[1]!;
      if (current && current.source !== pendingSource) current = undefined;
      continue;
    }
    const target = targetHeader.exec(line);
    if (target) {
      if (current === undefined && pendingSource !== undefined) {
        current = { source: pendingSource, target: target[1]! };
        files.push(current);
      }
      continue;
    }
    const hunk = hunkHeader.exec(line);
    if (hunk) index = skipHunk(lines, index, hunk);
  }
  return files;
}

/** Returns the index of the hunk's last body line. */
function skipHunk(lines: readonly string[], headerIndex: number, hunk: RegExpExecArray): number {
  let sourceLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
  let targetLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
  let index = headerIndex;
  while ((sourceLeft > 0 || targetLeft > 0) && index + 1 < lines.length) {
    const line = lines[index + 1]!;
    if (line.startsWith('-')) sourceLeft--;
    else if (line.startsWith('+')) targetLeft--;
    else if (line.startsWith(' ') || line === '') {
      sourceLeft--;
      targetLeft--;
    } else if (!line.startsWith('\\')) break;
    index++;
  }
  return index;
}
