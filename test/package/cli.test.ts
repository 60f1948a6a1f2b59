import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { distPath, requireDist } from './built-dist.js';

const bin = distPath('cli/main.js');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 15_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('kb-voice bin (dist/cli/main.js)', () => {
  beforeAll(() => requireDist('cli/main.js'));

  it('is an executable node script', () => {
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
  });

  it('prints usage naming both commands on --help and exits 0', () => {
    const { code, stdout } = run('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: kb-voice <command>/);
    expect(stdout).toContain('emulator');
    expect(stdout).toContain('relay --upstream URL');
    expect(run('-h').stdout).toBe(stdout);
  });

  it('prints the package version on --version', () => {
    const pkg = JSON.parse(readFileSync(distPath('../package.json'), 'utf8')) as { version: string };
    const { code, stdout } = run('--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('rejects an unknown command with usage on stderr and exit code 2', () => {
    const { code, stdout, stderr } = run('serve');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain("unknown command 'serve'");
    expect(stderr).toContain('Usage: kb-voice <command>');
  });

  it('treats a missing command as a usage error (exit 2)', () => {
    const { code, stderr } = run();
    expect(code).toBe(2);
    expect(stderr).toContain('Usage: kb-voice <command>');
  });

  it('does not mistake inherited object keys for commands', () => {
    expect(run('toString').code).toBe(2);
    expect(run('__proto__').code).toBe(2);
  });
});
