// The npm command of the Python build (pyproject.toml, hatch-jupyter-builder's npm_builder, which
// runs `<npm> install` then `<npm> run <build>`).  `install` becomes `npm ci`: it installs exactly
// what package-lock.json says and never rewrites it, so a build leaves a clone's `git status` as it
// was; it is skipped when node_modules already holds that lock.  Anything else goes to npm as is.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const args = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function installed() {
  // npm writes node_modules/.package-lock.json after every install; newer than the lock and
  // package.json means node_modules is what the lock says.
  const hidden = 'node_modules/.package-lock.json';
  if (!existsSync(hidden)) {
    return false;
  }
  const since = statSync(hidden).mtimeMs;
  return ['package.json', 'package-lock.json'].every(
    f => statSync(f).mtimeMs <= since
  );
}

let command = args;
if (args.length === 1 && args[0] === 'install') {
  if (installed()) {
    console.log(
      'npm.mjs: node_modules matches package-lock.json: no npm ci needed'
    );
    process.exit(0);
  }
  command = ['ci', '--no-audit', '--no-fund'];
}
const done = spawnSync(npm, command, { stdio: 'inherit' });
if (done.error) {
  console.error(`npm.mjs: cannot run npm: ${done.error.message}`);
  process.exit(1);
}
process.exit(done.status ?? 1);
