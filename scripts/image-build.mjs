/**
 * How test/deploy/image.test.ts builds deploy/Dockerfile, in one place for the two that run that
 * build: scripts/test-prerequisites.sh starts it in the background as soon as podman and the
 * stand-in base are ready, so the cold build's downloads (the build stage's apt-get, `npm ci`) and
 * compiles overlap the checks, `unit` and `system-shared`; the test then builds again with the same
 * arguments, from podman's layer cache (issue 26; docs/testing.md, "Suite time"). Both take
 * IMAGE_BUILD_LOCK (flock) for their build, so the test waits for a build under way instead of
 * running the same steps beside it. `node scripts/image-build.mjs args` prints the arguments of
 * `podman` for the image, one a line.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE = '/var/cache/agentport-test';
export const IMAGE_BUILD_LOCK = path.join(CACHE, 'image-build.lock');
/** The pid of the prerequisites' background build (flock, whose child is podman). */
export const EARLY_BUILD_PID = path.join(CACHE, 'image-build.pid');
export const NODE_BASE = 'localhost/agentport-test/node:20-bookworm-slim';
/** The image under test, and its build stages (tagged so their layers, `npm ci` first, stay cached). */
export const IMAGE = 'localhost/agentport-test/agentport:latest';
export const BUILD_STAGE = 'localhost/agentport-test/agentport-build:latest';
export const PACKAGES_STAGE = 'localhost/agentport-test/agentport-production-packages:latest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function revision() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The arguments of `podman` that build the image (`image`) and then tag its build stages
 * (`stages`: every layer of deps, production-packages and build is an ancestor of one of them).
 */
export function imageBuildArgs() {
  const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const common = [
    'build',
    '--pull=never',
    '--network',
    'host',
    // Docker's format: the OCI image format has no HEALTHCHECK (podman drops it, with a warning).
    '--format',
    'docker',
    // Read by BuildKit next to the Dockerfile on its own; buildah needs to be told.
    '--ignorefile',
    path.join(ROOT, 'deploy/Dockerfile.dockerignore'),
    '-f',
    path.join(ROOT, 'deploy/Dockerfile'),
    '--build-arg',
    `NODE_IMAGE=${NODE_BASE}`,
  ];
  return {
    image: [...common, '--build-arg', `VERSION=${version}`, '--build-arg', `REVISION=${revision()}`, '--build-arg', `SOURCE=file://${ROOT}`, '-t', IMAGE, ROOT],
    stages: [
      [...common, '--target', 'build', '-t', BUILD_STAGE, ROOT],
      [...common, '--target', 'production-packages', '-t', PACKAGES_STAGE, ROOT],
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'args') {
  for (const arg of imageBuildArgs().image) console.log(arg);
}
