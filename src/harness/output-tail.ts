// The last lines of a command's output, for error messages.

export function outputTail(output: string | undefined, lines = 20): string {
  if (output === undefined) return '';
  return output.trimEnd().split('\n').slice(-lines).join('\n');
}
