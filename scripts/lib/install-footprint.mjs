// What an `npm install` put on disk: shared by the package checks (scripts/check-package.mjs, which
// enforce the targets) and the install-footprint benchmark (bench/install-footprint.mjs, which
// compares kb-voice with other voice SDKs installed the same way).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * What an install put into `nodeModules`: bytes (file sizes), `diskBytes` (what `du -sk` reports:
 * allocated blocks, the "on disk" figure), the packages (every folder
 * with a package.json directly under node_modules or a scope, at any depth), native binaries
 * (`*.node`) and packages with an install script (preinstall/install/postinstall, or a binding.gyp
 * that npm would build).
 */
export async function measureInstall(nodeModules) {
  const footprint = { bytes: 0, diskBytes: 0, packages: [], nativeBinaries: [], installScripts: [] };
  const walk = async (dir) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        footprint.bytes += (await stat(full)).size;
        if (entry.name.endsWith('.node')) footprint.nativeBinaries.push(path.relative(nodeModules, full));
      }
    }
  };
  await walk(nodeModules);
  const visitPackages = async (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        await visitPackages(full);
        continue;
      }
      const manifest = path.join(full, 'package.json');
      if (!existsSync(manifest)) continue;
      const meta = JSON.parse(await readFile(manifest, 'utf8'));
      footprint.packages.push(meta.name ?? path.relative(nodeModules, full));
      const scripts = meta.scripts ?? {};
      if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(path.join(full, 'binding.gyp'))) {
        footprint.installScripts.push(meta.name);
      }
      await visitPackages(path.join(full, 'node_modules'));
    }
  };
  await visitPackages(nodeModules);
  footprint.packages.sort();
  const du = spawnSync('du', ['-sk', nodeModules], { encoding: 'utf8' });
  if (du.status !== 0) throw new Error(`du -sk ${nodeModules} failed: ${du.stderr}`);
  footprint.diskBytes = Number(du.stdout.split(/\s/)[0]) * 1024;
  return footprint;
}

