import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Prebuilds the workflow bundle so production workers start without running webpack. */
async function main(): Promise<void> {
  const root = join(__dirname, '..');
  const { code } = await bundleWorkflowCode({ workflowsPath: join(root, 'workflows') });
  await writeFile(join(root, 'workflow-bundle.js'), code);
  process.stdout.write(
    `Wrote ${join('dist', 'workflow-bundle.js')} (${Math.round(code.length / 1024)} KiB)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
