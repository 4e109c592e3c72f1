// Runs an installed bundle's CLI with --version (native binaries directly, JS through the bundled node).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { harnessBundlePaths } from './harness-cache.js';
import { HarnessInstallError } from './harness-errors.js';
import type { LoadedHarness } from './harness-manifest.js';
import { outputTail } from './output-tail.js';
import { renderHarnessSession } from './render-harness-session.js';

/**
 * Returns the first line the CLI printed. Runs with a throw-away HOME and the harness's own
 * environment (telemetry and update checks off) so that checking a version talks to nobody.
 * Contract: throws HarnessInstallError when the executable is missing, fails, or reports another version.
 */
export async function verifyHarnessBundle(harness: LoadedHarness, bundleDir: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  const paths = harnessBundlePaths(bundleDir, harness);
  const home = await mkdtemp(path.join(os.tmpdir(), `polar-${harness.name}-version-`));
  try {
    const session = renderHarnessSession(harness, {
      home,
      workdir: home,
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'polar-version-check',
      model: 'polar-version-check',
      instruction: 'version check',
      bundleDir,
    });
    const argv = harness.usesNode ? [paths.node, paths.bin, '--version'] : [paths.bin, '--version'];
    const result = await execa(argv[0] ?? '', argv.slice(1), {
      env: session.env,
      cwd: home,
      stdin: 'ignore',
      all: true,
      reject: false,
      timeout: 120_000,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    if (result.failed) {
      throw new HarnessInstallError(
        `${harness.name}: \`${path.basename(paths.bin)} --version\` failed (${result.shortMessage ?? `exit code ${result.exitCode}`})`,
        outputTail(result.all),
        `Remove ${bundleDir} and run: polar harness install ${harness.name}`,
      );
    }
    // Pi prints its version on stderr; the others on stdout.
    const reported = firstLine(result.stdout) ?? firstLine(result.stderr) ?? '';
    if (!reported.includes(harness.version)) {
      throw new HarnessInstallError(
        `${harness.name}: --version printed "${reported}", expected ${harness.version}`,
        outputTail(result.all),
        `The package did not install the pinned version; remove ${bundleDir} and reinstall.`,
      );
    }
    return reported;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function firstLine(text: string | undefined): string | undefined {
  return (text ?? '').split('\n').map((line) => line.trim()).find((line) => line !== '');
}
