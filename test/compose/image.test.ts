import { isUnpinnedImage } from '../../lib/compose/image';
import { loadComposeFromString } from '../../lib/compose/load';

describe('isUnpinnedImage', () => {
  test.each([
    ['nginx', true],
    ['nginx:latest', true],
    ['registry.example.com:5000/team/api', true],
    ['registry.example.com:5000/team/api:latest', true],
    ['nginx:1.25', false],
    ['registry.example.com:5000/team/api:2.1.0', false],
    [`nginx@sha256:${'a'.repeat(64)}`, false],
  ])('%s → %s', (image, unpinned) => {
    expect(isUnpinnedImage(image)).toBe(unpinned);
  });
});

test('the loader warns once per service with an unpinned image', () => {
  const { warnings } = loadComposeFromString('services:\n  web:\n    image: nginx\n  db:\n    image: postgres:16\n', {
    env: {},
  });
  expect(warnings.filter((w) => w.code === 'unpinned-image')).toEqual([
    {
      code: 'unpinned-image',
      message:
        'image "nginx" is not pinned (no tag, or :latest), so each pull may run a different version; pin a version ' +
        'tag or a digest',
      at: { file: 'compose.yaml', path: 'services.web.image', line: 3, column: 12 },
    },
  ]);
});
