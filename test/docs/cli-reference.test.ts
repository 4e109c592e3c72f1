// The generated command reference says what `polar <command> --help` says: a page per command, a section per
// subcommand, every option with commander's own description (defaults included), text made safe for VitePress.
import { Help, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { renderCliReference } from '../../docs/.vitepress/generate/cli-reference.js';
import { inlineText } from '../../docs/.vitepress/generate/markdown-text.js';
import { createProgram } from '../../src/cli/main.js';

const subcommands = (command: Command): Command[] => command.commands.filter((sub) => sub.name() !== 'help');
const allCommands = (command: Command): Command[] => subcommands(command).flatMap((sub) => [sub, ...allCommands(sub)]);

describe('renderCliReference', () => {
  const program = createProgram();
  const reference = renderCliReference(program, { rollout: { text: 'Running rollouts', link: '../../guide/rollouts.md' } });

  it('has one page per command and a section for every subcommand', () => {
    expect(reference.pages.map((page) => page.slug)).toEqual(subcommands(program).map((command) => command.name()));
    const documented = reference.pages.flatMap((page) => page.sections.map((section) => section.path));
    const paths = allCommands(program).map((command) => {
      const names: string[] = [];
      for (let at: Command | null = command; at !== null && at.parent !== null; at = at.parent) names.unshift(at.name());
      return names.join(' ');
    });
    expect(documented.sort()).toEqual(paths.sort());
  });

  it('gives every option the description --help prints, with its default', () => {
    const help = new Help();
    for (const page of reference.pages) {
      const command = program.commands.find((candidate) => candidate.name() === page.slug) as Command;
      for (const at of [command, ...allCommands(command)]) {
        for (const option of at.options.filter((candidate) => candidate.long !== '--help')) {
          expect(page.markdown, `${page.title} ${option.flags}`).toContain(inlineText(help.optionDescription(option), { inTable: true }));
        }
      }
    }
    const rollout = reference.pages.find((page) => page.slug === 'rollout')?.markdown ?? '';
    expect(rollout).toMatch(/`--samples <k>` \| sessions per task \(a GRPO group\) \(default: 1\) \|/);
    expect(rollout).toContain('Explained in: [Running rollouts](../../guide/rollouts.md)');
  });

  it('lists every command on the index page, linked to its section', () => {
    expect(reference.index).toContain('[`polar runs show`](./runs.md#show)');
    expect(reference.index).toContain('[`polar engine calibrate`](./engine.md#calibrate)');
    for (const command of subcommands(program)) expect(reference.index).toContain(`(./${command.name()}.md)`);
  });
});

describe('inlineText', () => {
  it('escapes what VitePress would read as HTML, Vue or Markdown, and keeps backtick spans as code', () => {
    expect(inlineText('sim:<policy> or {{x}} with *stars* and a_b')).toBe('sim:&lt;policy&gt; or &#123;&#123;x}} with \\*stars\\* and a\\_b');
    expect(inlineText('run `polar engine calibrate --upstream <url>` | then', { inTable: true })).toBe('run `polar engine calibrate --upstream <url>` \\| then');
  });
});
