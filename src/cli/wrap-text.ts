// Word-wraps a paragraph for the terminal (a closing summary a person reads, not a log line a program parses).

/** The words of `text` in lines of at most `width` characters (a longer word, such as a path, gets a line of its own). */
export function wrapText(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The commands to run next, one a line under a `Next:` label. */
export function nextCommandLines(commands: readonly string[]): string[] {
  return commands.map((command, index) => `${index === 0 ? 'Next: ' : '      '}${command}`);
}
