import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptFixture } from './script-fixture.js';

// scripts/check-doc-links.mjs (a step of npm test) on throw-away folders laid out like the
// repository: every relative link of README.md, docs/*.md and the top-level folders' READMEs must
// reach a file of the folder, and an anchor a heading of its page.

const { tree, check, cleanup } = scriptFixture('check-doc-links');
afterEach(cleanup);

const guide = [
  '# The guide',
  '## React: `kb-voice/react`',
  "## Flite's cost per sentence",
  '## Repeat',
  '## Repeat',
  '```md skip: an example',
  '## Not a heading',
  '[not a link](nowhere.md)',
  '```',
  '',
].join('\n');

describe('check-doc-links', () => {
  it('passes links to existing files and headings, GitHub-style anchors included', () => {
    const dir = tree({
      'README.md': '[guide](docs/guide.md) · [react](docs/guide.md#react-kb-voicereact) · [here](#top) · [web](https://example.com/x.md)\n\n## Top\n',
      'docs/guide.md': `${guide}[back](../README.md#top) · [flite](#flites-cost-per-sentence) · [second](#repeat-1) · \`[code](missing.md)\`\n`,
      'emulator/README.md': '[img](pic.png)\n',
      'emulator/pic.png': 'x',
      'node_modules/README.md': '[not a page](gone.md)\n', // installed packages and build output are not pages
      'dist/README.md': '[not a page](gone.md)\n',
      'docs/notes.txt': '[not a page](gone.md)\n',
    });
    const { status, output } = check(dir);
    expect(status, output).toBe(0);
    expect(output).toContain('0 broken in 3 page(s) (README.md, docs/guide.md, emulator/README.md)');
  });

  it('fails on a missing file, a missing anchor, and a link out of the repository, with file and line', () => {
    const dir = tree({
      'README.md': '# Top\n\n[gone](docs/gone.md)\n[bad anchor](docs/guide.md#not-there)\n[out](../shared/CONTRACT.md)\n[code heading](docs/guide.md#not-a-heading)\n',
      'docs/guide.md': guide,
      'qa/README.md': '[self](#nothing)\n',
    });
    const { status, output } = check(dir);
    expect(status, output).toBe(1);
    expect(output).toContain('README.md:3: docs/gone.md (no such file)');
    expect(output).toContain('README.md:4: docs/guide.md#not-there (no heading #not-there');
    expect(output).toContain('README.md:5: ../shared/CONTRACT.md (outside the repository)');
    expect(output).toContain('README.md:6: docs/guide.md#not-a-heading');
    expect(output).toContain(`${path.join('qa', 'README.md')}:1: #nothing`);
    expect(output).toContain('5 broken');
  });
});
