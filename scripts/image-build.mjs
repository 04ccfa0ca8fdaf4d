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
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
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
/**
 * Written by the prerequisites' build (`early`, below) when the image and its stages are built:
 * what they were built from (`fingerprint`) and the image ids it left. The test builds again only
 * when its own tree or the tags differ from these.
 */
export const EARLY_BUILD_STAMP = path.join(CACHE, 'image-build-early.json');
const DOCKERFILE = 'deploy/Dockerfile';
const IGNOREFILE = 'deploy/Dockerfile.dockerignore';

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

/** The id of an image, or undefined when there is none by that name. */
export function imageId(name) {
  const r = spawnSync('podman', ['image', 'inspect', '--format', '{{.Id}}', name], { encoding: 'utf8', env: { ...process.env, CONTAINERS_CONF: path.join(CACHE, 'containers.conf') } });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Everything the build reads from outside its layer cache: the arguments of all three builds (the
 * labels' revision among them), the base image's id, the Dockerfile, its ignore file, and the path,
 * mode and content of every file the ignore file lets into the context (its `!` lines). Two equal
 * fingerprints mean a build would make the same image from the same cached layers. `root` is the
 * checkout whose files are read (another one only in test/deploy/build-fingerprint.test.ts).
 */
export function buildFingerprint(root = ROOT) {
  const hash = createHash('sha256');
  const args = imageBuildArgs();
  hash.update(JSON.stringify([args.image, args.stages, imageId(NODE_BASE) ?? 'no base image']));
  const add = (rel) => {
    const file = path.join(root, rel);
    let st;
    try {
      st = lstatSync(file);
    } catch {
      hash.update(`missing ${rel}\0`);
      return;
    }
    if (st.isDirectory()) {
      for (const entry of readdirSync(file).sort()) add(path.join(rel, entry));
    } else if (st.isSymbolicLink()) {
      hash.update(`link ${rel} ${readlinkSync(file)}\0`);
    } else {
      hash.update(`file ${rel} ${st.mode}\0`);
      hash.update(readFileSync(file));
    }
  };
  add(DOCKERFILE);
  add(IGNOREFILE);
  const allowed = readFileSync(path.join(root, IGNOREFILE), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1).replace(/\/+$/, ''));
  for (const rel of allowed) add(rel);
  return hash.digest('hex');
}

/**
 * The prerequisites' build (scripts/test-prerequisites.sh runs it under the build's lock): the
 * image, then its stages (cached by then), then EARLY_BUILD_STAMP. A build from an unchanged tree
 * still took 50-180 s of podman checking its cache (hashing the copied trees, node_modules first)
 * on the loaded 2-core machine, and the stages 30 s more: the test no longer does that again.
 */
function early() {
  rmSync(EARLY_BUILD_STAMP, { force: true });
  const fingerprint = buildFingerprint();
  const args = imageBuildArgs();
  for (const build of [args.image, ...args.stages]) {
    const r = spawnSync('podman', build, { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  const ids = Object.fromEntries([IMAGE, BUILD_STAGE, PACKAGES_STAGE].map((name) => [name, imageId(name)]));
  writeFileSync(EARLY_BUILD_STAMP, `${JSON.stringify({ fingerprint, ids })}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'args') for (const arg of imageBuildArgs().image) console.log(arg);
  if (process.argv[2] === 'fingerprint') console.log(buildFingerprint());
  if (process.argv[2] === 'early') early();
}
