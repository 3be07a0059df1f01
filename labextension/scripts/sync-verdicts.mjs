// Copy the one source of verdict names and colours, z3sandbox_kernel/protocol/verdicts.json (shared with
// the Python HTML), next to the sources, so that src/verdicts.ts can import it: tsc cannot import
// a file outside rootDir.  The copy is git-ignored and refreshed before every build, test and lint.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(
  here,
  '..',
  '..',
  'z3sandbox_kernel',
  'protocol',
  'verdicts.json'
);
const target = join(here, '..', 'src', 'verdicts.generated.json');

if (!existsSync(source)) {
  console.error(
    `sync-verdicts: ${source} is missing (it is the one source of verdict colours)`
  );
  process.exit(1);
}
if (
  !existsSync(target) ||
  readFileSync(source, 'utf8') !== readFileSync(target, 'utf8')
) {
  copyFileSync(source, target);
}
